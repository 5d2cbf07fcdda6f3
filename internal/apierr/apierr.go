package apierr

import (
	"fmt"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The error types and sentinels are those of package pfc: the shared layers
// build them directly, so what a client returns is already public.
type (
	APIError        = pfc.APIError
	FieldError      = pfc.FieldError
	ValidationError = pfc.ValidationError
)

// Sentinels of package pfc, under their short internal names.
var (
	ErrBadRequest            = pfc.ErrBadRequest
	ErrUnauthorized          = pfc.ErrUnauthorized
	ErrNotFound              = pfc.ErrNotFound
	ErrTooLarge              = pfc.ErrTooLarge
	ErrRateLimited           = pfc.ErrRateLimited
	ErrServer                = pfc.ErrServer
	ErrInvalidParameter      = pfc.ErrInvalidParameter
	ErrStillProcessing       = pfc.ErrStillProcessing
	ErrResponseHeaderTimeout = pfc.ErrResponseHeaderTimeout
	ErrUnreachable           = pfc.ErrUnreachable
	ErrDownloadTooLarge      = pfc.ErrDownloadTooLarge
	ErrTruncatedResponse     = pfc.ErrTruncatedResponse
)

// FieldErrors collects validation problems so that one error reports all of
// them at once. The zero value is empty and ready to use.
type FieldErrors []FieldError

// Add records a problem with field; the message is fmt.Sprintf(format, args...).
func (f *FieldErrors) Add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Has reports whether a problem with field was recorded.
func (f FieldErrors) Has(field string) bool {
	for _, fe := range f {
		if fe.Field == field {
			return true
		}
	}
	return false
}

// Err returns a *ValidationError holding a copy of the collected problems,
// or nil (an untyped nil) when there are none.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &ValidationError{Errors: append([]FieldError(nil), f...)}
}
