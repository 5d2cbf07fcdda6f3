package hosted

import (
	"errors"
	"fmt"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// APIError is returned for every non-2xx answer of the API, a pre-signed
// upload or a download. Its URL and Body are redacted: they never hold the
// API key or a pre-signed signature. Use errors.As to inspect it and
// errors.Is with the sentinels below to classify it.
type APIError = apierr.APIError

// ValidationError lists every parameter that failed client-side validation,
// by its wire name. No request is sent when it is returned.
type ValidationError = apierr.ValidationError

// FieldError is one invalid parameter of a ValidationError.
type FieldError = apierr.FieldError

// Sentinel errors for errors.Is. An *APIError matches the class of its HTTP
// status; a *ValidationError matches ErrInvalidParameter.
var (
	ErrBadRequest       = apierr.ErrBadRequest       // 400, 422
	ErrUnauthorized     = apierr.ErrUnauthorized     // 401, 403
	ErrNotFound         = apierr.ErrNotFound         // 404, 410
	ErrTooLarge         = apierr.ErrTooLarge         // 413
	ErrRateLimited      = apierr.ErrRateLimited      // 429
	ErrServer           = apierr.ErrServer           // 5xx
	ErrInvalidParameter = apierr.ErrInvalidParameter // client-side validation
	// ErrResponseHeaderTimeout: no response headers within the response
	// header timeout (see WithResponseHeaderTimeout).
	ErrResponseHeaderTimeout = apierr.ErrResponseHeaderTimeout
)

// Sentinels for the outcome of a job, matched by *JobError and
// *WaitTimeoutError.
var (
	ErrJobFailed   = errors.New("hosted: job failed")
	ErrJobRejected = errors.New("hosted: job rejected")
	ErrWaitTimeout = errors.New("hosted: gave up waiting for job")
)

// JobError reports a job that ended FAILED or REJECTED. It matches
// ErrJobFailed or ErrJobRejected with errors.Is.
type JobError struct {
	Job *Job // the terminal job record
}

// Error describes the job's status, code and statusText.
func (e *JobError) Error() string {
	msg := fmt.Sprintf("hosted: job %s %s (code %d)", e.Job.ID, e.Job.Status, e.Job.Code)
	if e.Job.StatusText != "" {
		msg += ": " + e.Job.StatusText
	}
	return msg
}

// Unwrap returns ErrJobRejected for REJECTED jobs and ErrJobFailed otherwise.
func (e *JobError) Unwrap() error {
	if e.Job.Status == StatusRejected {
		return ErrJobRejected
	}
	return ErrJobFailed
}

// WaitTimeoutError reports that a job was not terminal when the wait's
// MaxWait ran out. It carries the last record seen, and matches
// ErrWaitTimeout with errors.Is. A cancelled or expired context is reported
// as the context's own error instead.
type WaitTimeoutError struct {
	JobID   string
	LastJob *Job // nil if no poll succeeded
	Waited  time.Duration
}

// Error says which job was still in which state after how long.
func (e *WaitTimeoutError) Error() string {
	state := "unknown"
	if e.LastJob != nil {
		state = string(e.LastJob.Status)
	}
	return fmt.Sprintf("hosted: job %s still %s after %s", e.JobID, state, e.Waited.Round(time.Millisecond))
}

// Unwrap returns ErrWaitTimeout.
func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }
