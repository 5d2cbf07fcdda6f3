package apierr

import (
	"errors"
	"fmt"
	"strings"
)

// apiErrorFields is the field list of APIError. A client package's public
// APIError must declare exactly these fields, in this order (doc comments
// are free), so that its values convert to and from *APIError; Export's
// type constraint makes the compiler check it.
type apiErrorFields = struct {
	StatusCode int
	Method     string
	URL        string
	Code       string
	Message    string
	Parameter  string
	RequestID  string
	Body       []byte
	Attempts   int
}

// fieldErrorFields is the field list of FieldError (see apiErrorFields).
type fieldErrorFields = struct {
	Field   string
	Message string
}

// Compile-time checks that the internal types have the shared field lists.
var (
	_ = APIError(apiErrorFields{})
	_ = FieldError(fieldErrorFields{})
)

// Export gives err a client package's public error types; every exported
// function and method of a client package returns its error through it
// (see "How a client package exposes errors" in the package doc):
//
//	func exportErr(err error) error {
//		return apierr.Export[APIError, FieldError, ValidationError](err)
//	}
//
// A, F and V are the package's APIError, FieldError and ValidationError;
// PA and PV are inferred (*A and *V).
//
// A *APIError or *ValidationError returned as is becomes the package's own
// *A or *V (a copy). One found deeper in a chain (wrapped with %w) is kept,
// and the error returned wraps both the original chain and the public
// copy: its message is err's message, errors.As finds the public type,
// and errors.Is still reaches the sentinels and anything else in the chain
// (context.Canceled, fs.ErrNotExist ...). nil and errors that hold neither
// type, or that were already exported, are returned unchanged.
func Export[A ~apiErrorFields, F ~fieldErrorFields, V ~struct{ Errors []F }, PA interface {
	*A
	error
}, PV interface {
	*V
	error
}](err error) error {
	if err == nil {
		return nil
	}
	var pa PA
	var pv PV
	if errors.As(err, &pa) || errors.As(err, &pv) {
		return err // already exported
	}
	var pub error
	var ae *APIError
	var ve *ValidationError
	switch {
	case errors.As(err, &ae):
		a := A(*ae)
		pub = PA(&a)
		if error(ae) == err {
			return pub
		}
	case errors.As(err, &ve):
		fields := make([]F, len(ve.Errors))
		for i, fe := range ve.Errors {
			fields[i] = F(fe)
		}
		v := V{Errors: fields}
		pub = PV(&v)
		if error(ve) == err {
			return pub
		}
	default:
		return err
	}
	return &exported{err: err, pub: pub}
}

// exported is an error chain holding an internal typed error, with the
// public copy of that error placed first for errors.As.
type exported struct {
	err error // the original chain: its message, and everything errors.Is may look for
	pub error // the client package's public copy of the typed error in err
}

func (e *exported) Error() string   { return e.err.Error() }
func (e *exported) Unwrap() []error { return []error{e.pub, e.err} }

// ValidationMessage is ValidationError's message for a client package's
// own field errors: "pfc: invalid parameters: a: ...; b: ...".
func ValidationMessage[F ~fieldErrorFields](errs []F) string {
	parts := make([]string, len(errs))
	for i, fe := range errs {
		parts[i] = FieldError(fe).Error()
	}
	return "pfc: invalid parameters: " + strings.Join(parts, "; ")
}

// FieldNames is ValidationError.Fields for a client package's own field
// errors: each name once, in the order first reported.
func FieldNames[F ~fieldErrorFields](errs []F) []string {
	seen := make(map[string]bool, len(errs))
	fields := make([]string, 0, len(errs))
	for _, f := range errs {
		if name := FieldError(f).Field; !seen[name] {
			seen[name] = true
			fields = append(fields, name)
		}
	}
	return fields
}

// Redactf is fmt.Errorf whose message has passed redact (nil: identity):
// use it for every error string built from a server's answer or a user's
// input (job ids, status texts, URLs, quoted values), so that a secret a
// server echoes never reaches an error string. The %w operands stay in
// the chain for errors.Is and errors.As; the formatted wrapper itself,
// whose text is not redacted, is not.
func Redactf(redact func(string) string, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	msg := err.Error()
	if redact != nil {
		msg = redact(msg)
	}
	r := &redacted{msg: msg}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if c := u.Unwrap(); c != nil {
			r.causes = []error{c}
		}
	case interface{ Unwrap() []error }:
		r.causes = u.Unwrap()
	}
	return r
}

// redacted is an error with a redacted message and the causes of the
// error it was built from.
type redacted struct {
	msg    string
	causes []error
}

func (e *redacted) Error() string   { return e.msg }
func (e *redacted) Unwrap() []error { return e.causes }
