package webhook

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors, usable with errors.Is. No error of this package includes
// a secret or a signature.
var (
	// ErrInvalidSecret: NewVerifier was given no secret, an empty one, or
	// something that is not the raw API key, such as a Standard Webhooks
	// "whsec_..." signing secret; the error says what to pass instead.
	ErrInvalidSecret = errors.New("webhook: invalid secret")
	// ErrInvalidOption: an option was given an unusable value.
	ErrInvalidOption = errors.New("webhook: invalid option")

	// ErrInvalidHeader: a webhook header is absent, empty, or appears more
	// than once (which makes the delivery ambiguous). The *HeaderError
	// wrapping it names the header.
	ErrInvalidHeader = errors.New("webhook: invalid header")
	// ErrInvalidTimestamp: webhook-timestamp is not canonical unix seconds
	// (decimal digits only, no sign, no leading zero, at most int64).
	ErrInvalidTimestamp = errors.New("webhook: invalid timestamp")

	// ErrNoValidSignature: no "v1" entry of webhook-signature matches the
	// body under any of the verifier's secrets.
	ErrNoValidSignature = errors.New("webhook: no valid signature")
	// ErrTimestampOutOfTolerance: the signature is valid but
	// webhook-timestamp is further in the past (a replay or a slow clock)
	// or the future (a fast sender clock) than the tolerance; the
	// *TimestampError wrapping it says which.
	ErrTimestampOutOfTolerance = errors.New("webhook: timestamp outside the tolerance")

	// ErrInvalidPayload: the body is authentic but does not decode into a
	// hosted.Job. The error wrapping it also wraps the encoding/json error.
	ErrInvalidPayload = errors.New("webhook: invalid payload")

	// ErrDeliveryInProgress is passed to the middleware's error hook when
	// a delivery arrives while another delivery with the same webhook-id is
	// being handled; the duplicate is answered 409 Conflict.
	ErrDeliveryInProgress = errors.New("webhook: delivery in progress")
	// ErrIdempotencyStore wraps errors returned by an IdempotencyStore; the
	// middleware answers 500 so that the service retries.
	ErrIdempotencyStore = errors.New("webhook: idempotency store")
)

// Pre-built so that rejecting a bad signature does not allocate.
var (
	errNoV1Entry = fmt.Errorf("%w: no v1 entry", ErrNoValidSignature)
	errNoMatch   = fmt.Errorf("%w: no v1 entry matches", ErrNoValidSignature)
)

// HeaderError reports a missing, repeated or malformed webhook header.
type HeaderError struct {
	// Header is the header name: "webhook-id", "webhook-timestamp" or
	// "webhook-signature".
	Header string
	// Reason says what is wrong in a few words; empty for a missing header.
	Reason string
	// Err is ErrInvalidHeader or ErrInvalidTimestamp.
	Err error
}

// Error returns e.g. "webhook: invalid timestamp: webhook-timestamp: leading zero".
// The header value is never included.
func (e *HeaderError) Error() string {
	if e.Reason == "" {
		return e.Err.Error() + ": " + e.Header + ": missing"
	}
	return e.Err.Error() + ": " + e.Header + ": " + e.Reason
}

// Unwrap returns the sentinel in Err.
func (e *HeaderError) Unwrap() error { return e.Err }

// TimestampError reports an authentic delivery whose timestamp is outside
// the tolerance. It is only returned once the signature has been verified,
// so it points at a clock problem or a replay, never at a forgery.
type TimestampError struct {
	// Timestamp is the delivery's webhook-timestamp.
	Timestamp time.Time
	// Now is the verifier's clock reading.
	Now time.Time
	// Tolerance is the verifier's tolerance.
	Tolerance time.Duration
	// Err is ErrTimestampOutOfTolerance.
	Err error
}

// Error returns e.g. "webhook: timestamp outside the tolerance: 301 s in
// the past by the receiver's clock, tolerance 5m0s" ("in the future" for
// a timestamp ahead of the clock).
func (e *TimestampError) Error() string {
	skew, dir := absDiff(e.Now.Unix(), e.Timestamp.Unix()), "in the past"
	if e.Timestamp.After(e.Now) {
		dir = "in the future"
	}
	return fmt.Sprintf("%v: %d s %s by the receiver's clock, tolerance %v", e.Err, skew, dir, e.Tolerance)
}

// Unwrap returns the sentinel in Err.
func (e *TimestampError) Unwrap() error { return e.Err }

// absDiff returns |a-b| without overflow: the distance between two int64
// values always fits in a uint64.
func absDiff(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}
