package imageio

import (
	"errors"
	"fmt"
)

// ErrRejected is the sentinel every *RejectError unwraps to: the input is
// outside what the service accepts (a REJECTED job, not a FAILED one).
var ErrRejected = errors.New("imageio: image rejected")

// ErrCorrupt marks input that starts like a JPEG or PNG but cannot be
// decoded (truncated or damaged data): a processing failure (FAILED), not a
// rejection.
var ErrCorrupt = errors.New("imageio: corrupt image")

// ErrJPEGTooLarge is returned by Encode for a JPEG with a side above 65535
// pixels, which the JPEG format cannot store.
var ErrJPEGTooLarge = errors.New("imageio: image too large for JPEG (65535 px per side at most)")

// RejectReason says why an input was rejected.
type RejectReason string

// The rejection reasons.
const (
	// ReasonFormat: not a JPEG or PNG, or a JPEG/PNG variant the decoder
	// does not support (arithmetic coding, 12-bit JPEG...).
	ReasonFormat RejectReason = "format"
	// ReasonColorModel: a colour model other than RGB, RGBA or grey
	// (CMYK/YCCK JPEG).
	ReasonColorModel RejectReason = "colorModel"
	// ReasonTooSmall: the short side is below Limits.MinSide.
	ReasonTooSmall RejectReason = "tooSmall"
	// ReasonTooLarge: the long side is above Limits.MaxLongSide.
	ReasonTooLarge RejectReason = "tooLarge"
	// ReasonAspect: long/short is not below Limits.AspectBelow.
	ReasonAspect RejectReason = "aspect"
	// ReasonMegapixels: width*height is not below Limits.PixelsBelow.
	ReasonMegapixels RejectReason = "megapixels"
)

// RejectError reports an input the service rejects. It unwraps to
// ErrRejected.
type RejectError struct {
	Reason RejectReason
	Detail string
}

// Error returns "imageio: rejected (<reason>): <detail>".
func (e *RejectError) Error() string {
	return fmt.Sprintf("imageio: rejected (%s): %s", e.Reason, e.Detail)
}

// Unwrap returns ErrRejected.
func (e *RejectError) Unwrap() error { return ErrRejected }

// corruptError is a decoding failure of input that looked like an image.
// It matches both ErrCorrupt and the decoder's own error with errors.Is.
type corruptError struct {
	what string
	err  error
}

func (e *corruptError) Error() string   { return "imageio: corrupt " + e.what + ": " + e.err.Error() }
func (e *corruptError) Unwrap() []error { return []error{ErrCorrupt, e.err} }

func corrupt(what string, err error) error { return &corruptError{what: what, err: err} }

func reject(reason RejectReason, format string, args ...any) error {
	return &RejectError{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}
