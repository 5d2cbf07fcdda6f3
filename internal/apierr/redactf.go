package apierr

import (
	"fmt"
)

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
