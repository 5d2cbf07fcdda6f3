package hosted

import (
	"errors"
	"fmt"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// APIError is returned for every non-2xx answer of the API, a pre-signed
// upload or a download. Every string in it is redacted: it never holds the
// API key or a pre-signed signature. Use errors.As to inspect it and
// errors.Is with the sentinels below to classify it (it unwraps to the
// sentinel of its status class).
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Method is the HTTP method of the request.
	Method string
	// URL is the request URL, redacted.
	URL string
	// Code is the service's error code when the body carried one (a JSON
	// "code", string or number, or an XML <Code>).
	Code string
	// Message is the service's error message when the body carried one.
	Message string
	// Parameter names the request parameter the service blamed, when the
	// error body carried one (a JSON "parameter" member): the one to fix.
	Parameter string
	// RequestID is the request id response header (X-Request-Id and
	// similar), when present; quote it when reporting a problem.
	RequestID string
	// Body is a bounded (at most 4 KiB), redacted copy of the response body.
	Body []byte
	// Attempts is how many times the request was sent, retries included.
	Attempts int
}

// Error returns a one-line description:
// "pfc: GET https://host/v2/pfc?...: 400 Bad Request: <message> (parameter P, code X, request id Y)".
func (e *APIError) Error() string { return (*apierr.APIError)(e).Error() }

// Unwrap returns the sentinel of the status class (ErrBadRequest,
// ErrUnauthorized, ErrNotFound, ErrTooLarge, ErrRateLimited, ErrServer),
// or nil for a status outside those classes.
func (e *APIError) Unwrap() error { return (*apierr.APIError)(e).Unwrap() }

// ValidationError lists every parameter that failed client-side
// validation. No request is sent when it is returned. It matches
// ErrInvalidParameter with errors.Is.
type ValidationError struct {
	// Errors holds one entry per problem, in the order they were found.
	Errors []FieldError
}

// Error returns "pfc: invalid parameters: a: ...; b: ...".
func (e *ValidationError) Error() string { return apierr.ValidationMessage(e.Errors) }

// Unwrap returns ErrInvalidParameter.
func (e *ValidationError) Unwrap() error { return ErrInvalidParameter }

// Fields returns the names of the invalid parameters, each once, in the
// order they were first reported.
func (e *ValidationError) Fields() []string { return apierr.FieldNames(e.Errors) }

// FieldError is one invalid parameter of a ValidationError.
type FieldError struct {
	// Field is the parameter's wire name (fileKey, bgColor ...), or the
	// name of the Go argument or option (srcPath, baseURL ...).
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "<field>: <message>".
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// exportErr gives err this package's public error types: every exported
// function and method returns its error through it (see internal/apierr).
func exportErr(err error) error {
	return apierr.Export[APIError, FieldError, ValidationError](err)
}

// exportTo is exportErr on a named error result, for a deferred call:
//
//	func (c *Client) GetJob(ctx context.Context, jobID string) (_ *Job, err error) {
//		defer exportTo(&err)
func exportTo(err *error) { *err = exportErr(*err) }

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
	// ErrDownloadTooLarge: a download exceeded WithMaxDownloadSize.
	ErrDownloadTooLarge = apierr.ErrDownloadTooLarge
	// ErrTruncatedResponse: an answer cut off before its end (the
	// connection closed before the Content-Length, or was reset): a JSON
	// answer still cut off after the retries, or a download, which is
	// never retried (the file variants then leave no file).
	ErrTruncatedResponse = apierr.ErrTruncatedResponse
)

// Sentinels for the outcome of a job, matched by *JobError and
// *WaitTimeoutError.
var (
	ErrJobFailed   = errors.New("pfc: job failed")
	ErrJobRejected = errors.New("pfc: job rejected")
	ErrWaitTimeout = errors.New("pfc: gave up waiting for job")
)

// JobError reports a job that ended FAILED or REJECTED. It matches
// ErrJobFailed or ErrJobRejected with errors.Is.
type JobError struct {
	Job *Job // the terminal job record, as the service sent it

	redact func(string) string // the client's redactor; nil: none
}

// Error describes the job's status, code and statusText (at most 200
// characters of it, on one line). Text from the service is redacted: a
// statusText that echoes the API key does not put it in the message.
func (e *JobError) Error() string {
	if e.Job == nil {
		return "pfc: job failed"
	}
	msg := fmt.Sprintf("pfc: job %s %s (code %d)", e.Job.ID, e.Job.Status, e.Job.Code)
	if e.Job.StatusText != "" {
		msg += ": " + e.Job.StatusText
	}
	if e.redact != nil {
		msg = e.redact(msg)
	}
	return oneLine(msg, apierr.MaxQuotedLine)
}

// Unwrap returns ErrJobRejected for REJECTED jobs and ErrJobFailed otherwise.
func (e *JobError) Unwrap() error {
	if e.Job != nil && e.Job.Status == StatusRejected {
		return ErrJobRejected
	}
	return ErrJobFailed
}

// WaitTimeoutError reports that a job was not terminal when the wait's
// MaxWait ran out. It carries the last record seen, and matches
// ErrWaitTimeout with errors.Is. A cancelled or expired context is reported
// as the context's own error instead.
type WaitTimeoutError struct {
	// JobID is the job waited for.
	JobID string
	// LastJob is the last record seen; nil if no poll succeeded.
	LastJob *Job
	// Waited is how long the wait ran.
	Waited time.Duration

	redact func(string) string // the client's redactor; nil: none
}

// Error says which job was still in which state after how long.
func (e *WaitTimeoutError) Error() string {
	state := "unknown"
	if e.LastJob != nil {
		state = string(e.LastJob.Status)
	}
	msg := fmt.Sprintf("pfc: job %s still %s after %s", e.JobID, state, e.Waited.Round(time.Millisecond))
	if e.redact != nil {
		msg = e.redact(msg)
	}
	return oneLine(msg, apierr.MaxQuotedLine)
}

// DownloadTooLargeError reports a download refused because the corrected
// file exceeds the bound set with WithMaxDownloadSize. It matches
// ErrDownloadTooLarge with errors.Is.
type DownloadTooLargeError struct {
	// JobID is the job whose file was refused (redacted).
	JobID string
	// Limit is the bound in bytes.
	Limit int64
	// Written is how many bytes reached the writer before the download was
	// stopped: 0 when the Content-Length already said too much. Correct's
	// dst holds that partial content; CorrectFile removes it.
	Written int64
}

// Error says which job's file was over which limit.
func (e *DownloadTooLargeError) Error() string {
	return fmt.Sprintf("pfc: download of job %s: larger than the limit of %d bytes (WithMaxDownloadSize)", e.JobID, e.Limit)
}

// Unwrap returns ErrDownloadTooLarge.
func (e *DownloadTooLargeError) Unwrap() error { return ErrDownloadTooLarge }

// oneLine collapses whitespace runs (newlines included) into single spaces
// and cuts s to at most max bytes on a rune boundary, marking a cut with
// "…". It does not redact: use it on text already redacted.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }

// Unwrap returns ErrWaitTimeout.
func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }
