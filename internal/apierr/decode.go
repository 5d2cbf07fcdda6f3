package apierr

import (
	"encoding/json"
	"errors"
	"strings"
)

// DecodeError returns err, the error of decoding a service's JSON answer,
// fit for an error string: its message quotes at most a short, redacted
// excerpt of the offending value (MaxQuotedValue bytes) and is at most
// MaxQuotedError bytes in all, redacted. Go's decoder copies the whole
// offending number into its *json.UnmarshalTypeError, so that a
// megabyte-long number made a megabyte-long error string.
//
// errors.As finds a *json.UnmarshalTypeError with the shortened Value
// (which replaces err when err is one); any other err stays in the chain
// for errors.Is (io.ErrUnexpectedEOF, context.Canceled ...) and errors.As
// of other types, as the causes of Redactf do: a wrapper of a type error
// still quotes the whole value in its own message, so wrap the type error
// with DecodeError where it is wrapped. nil gives nil.
func DecodeError(err error, redact func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	d := &decodeError{causes: []error{err}}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		short := *te
		short.Value = Excerpt(redact, te.Value, MaxQuotedValue)
		short.Field = Excerpt(redact, te.Field, MaxQuotedName)
		if short.Value != te.Value {
			msg = strings.ReplaceAll(msg, te.Value, short.Value)
		}
		d.causes = []error{&short}
		if error(te) != err {
			d.causes = append(d.causes, err)
		}
	}
	d.msg = Excerpt(redact, msg, MaxQuotedError)
	return d
}

// decodeError is a decoder's error with a bounded, redacted message.
type decodeError struct {
	msg    string
	causes []error
}

func (e *decodeError) Error() string   { return e.msg }
func (e *decodeError) Unwrap() []error { return e.causes }
