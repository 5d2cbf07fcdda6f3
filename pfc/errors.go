package pfc

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors, one per class of failure, the same values for the three
// clients. Test the class with errors.Is; get the details with errors.As
// and the error types of this package.
var (
	ErrBadRequest       = errors.New("pfc: bad request")       // 400, 422
	ErrUnauthorized     = errors.New("pfc: unauthorized")      // 401, 403
	ErrNotFound         = errors.New("pfc: not found")         // 404, 410
	ErrTooLarge         = errors.New("pfc: payload too large") // 413
	ErrRateLimited      = errors.New("pfc: rate limited")      // 429
	ErrServer           = errors.New("pfc: server error")      // 5xx
	ErrInvalidParameter = errors.New("pfc: invalid parameter") // *ValidationError
	// ErrStillProcessing: a final HTTP 102 Processing answer (the
	// background-removal container's DownloadImage while the job runs).
	// It is not a failure: poll again.
	ErrStillProcessing = errors.New("pfc: still processing")
	// ErrUnreachable: the last attempt could not reach its server (the
	// service, or the host of a redirect or of a pre-signed storage URL):
	// the connection was refused, the dial failed or timed out, or the
	// host name did not resolve. The chain also holds the *url.Error and
	// the cause from package net.
	ErrUnreachable = errors.New("pfc: service unreachable")
	// ErrResponseHeaderTimeout: no response headers, or no bytes of the
	// answer, within the response header timeout (WithResponseHeaderTimeout).
	ErrResponseHeaderTimeout = errors.New("pfc: timed out waiting for response headers")
	// ErrTruncatedResponse: an answer cut off before its end. A JSON answer
	// is retried first; a download never is, and the file variants then
	// leave no file.
	ErrTruncatedResponse = errors.New("pfc: response cut off before its end")
	// ErrInvalidResponse: a 2xx answer whose body is not what the API
	// documentation describes (*ResponseError).
	ErrInvalidResponse = errors.New("pfc: invalid response")
	// ErrDownloadTooLarge: a download over the size limit
	// (*DownloadTooLargeError).
	ErrDownloadTooLarge = errors.New("pfc: download exceeds the size limit")
	// ErrWaitTimeout: WaitOptions.MaxWait ran out (*WaitTimeoutError).
	ErrWaitTimeout = errors.New("pfc: gave up waiting for the job")
	// ErrJobFailed: a job the service reports as failed (or, for the
	// hosted API, rejected); see each client's JobError.
	ErrJobFailed = errors.New("pfc: job failed")
)

// maxMessageInError bounds the message quoted by APIError.Error so that one
// line of log stays readable; the full message stays in APIError.Message.
const maxMessageInError = 200

// APIError is an error status the service (or a proxy, or a pre-signed
// storage URL) answered. Every string in it is redacted: API keys, licence
// keys and URL signatures never appear. It unwraps to the sentinel of its
// status class (ErrBadRequest, ErrNotFound, ErrServer ...); other
// statuses (408, 409, 3xx ...) unwrap to nil.
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Method is the HTTP method of the request.
	Method string
	// URL is the request URL, redacted.
	URL string
	// Code is the error code of the body, when it had one (a JSON "code",
	// string or number, or an XML <Code>).
	Code string
	// Message is the error message of the body, when it had one.
	Message string
	// Parameter names the request parameter the service blamed, when the
	// body named one: the one to fix.
	Parameter string
	// RequestID is the request id response header (X-Request-Id and
	// similar, at most 256 bytes); quote it when reporting a problem.
	RequestID string
	// Body is a bounded (at most 4 KiB), redacted copy of the response body.
	Body []byte
	// Attempts is how many times the request was sent, retries included.
	Attempts int
}

// Error returns one line, "pfc: [<method> <URL>: ]<status>[ <text>][:
// <message>][ (<details>)]", the details being those known of "parameter
// <p>", "code <code>", "request id <id>" and "<n> attempts" (more than
// one), as in "pfc: GET https://host/v2/status/j1?noRedirect=true: 404
// Not Found: no such job (request id r1, 3 attempts)".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("pfc: ")
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteByte(' ')
	}
	if e.URL != "" {
		b.WriteString(e.URL)
	}
	if e.Method != "" || e.URL != "" {
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteByte(' ')
		b.WriteString(text)
	}
	if msg := oneLine(e.Message, maxMessageInError); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	var details []string
	if e.Parameter != "" {
		details = append(details, "parameter "+oneLine(e.Parameter, 64))
	}
	if e.Code != "" {
		details = append(details, "code "+oneLine(e.Code, 64))
	}
	if e.RequestID != "" {
		details = append(details, "request id "+oneLine(e.RequestID, 128))
	}
	if e.Attempts > 1 {
		details = append(details, strconv.Itoa(e.Attempts)+" attempts")
	}
	if len(details) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(details, ", "))
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the sentinel of the status class: 400 and 422
// ErrBadRequest, 401 and 403 ErrUnauthorized, 404 and 410 ErrNotFound, 413
// ErrTooLarge, 429 ErrRateLimited, 5xx ErrServer, a final 102
// ErrStillProcessing; nil for any other status.
func (e *APIError) Unwrap() error {
	switch code := e.StatusCode; {
	case code == http.StatusProcessing:
		return ErrStillProcessing
	case code == http.StatusBadRequest, code == http.StatusUnprocessableEntity:
		return ErrBadRequest
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return ErrUnauthorized
	case code == http.StatusNotFound, code == http.StatusGone:
		return ErrNotFound
	case code == http.StatusRequestEntityTooLarge:
		return ErrTooLarge
	case code == http.StatusTooManyRequests:
		return ErrRateLimited
	case code >= 500 && code <= 599:
		return ErrServer
	}
	return nil
}

// FieldError is one invalid parameter of a ValidationError.
type FieldError struct {
	// Field is the parameter's wire name (outputQuality, process_id ...),
	// or the name of the Go argument, option or field (srcPath, BaseURL ...).
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "<field>: <message>".
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// ValidationError lists every invalid parameter of a call, found before
// any request was sent. It matches ErrInvalidParameter.
type ValidationError struct {
	// Errors holds one entry per problem, in the order they were found.
	Errors []FieldError
}

// Error returns "pfc: invalid parameters: <field>: <message>[; <field>:
// <message>]...".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return "pfc: invalid parameters: " + strings.Join(parts, "; ")
}

// Unwrap returns ErrInvalidParameter.
func (e *ValidationError) Unwrap() error { return ErrInvalidParameter }

// Fields returns the names of the invalid parameters, each once, in the
// order they were first reported.
func (e *ValidationError) Fields() []string {
	seen := make(map[string]bool, len(e.Errors))
	fields := make([]string, 0, len(e.Errors))
	for _, f := range e.Errors {
		if !seen[f.Field] {
			seen[f.Field] = true
			fields = append(fields, f.Field)
		}
	}
	return fields
}

// ResponseError is a 2xx answer whose body is not what the API
// documentation describes: not JSON, a member missing or of the wrong
// type, a download that is not an image, or an answer that contradicts
// the request (a job record of another job, a preset listing that repeats
// itself or outgrows its total). Nothing of it is returned. It matches
// ErrInvalidResponse.
type ResponseError struct {
	// Endpoint is the call whose answer was invalid ("PUT /pfc",
	// "CheckImage" ...).
	Endpoint string
	// Field is the member at fault; empty when the whole body is.
	Field string
	// Reason says what is wrong (redacted).
	Reason string
}

// Error returns "pfc: <Endpoint>: invalid response[: field "<f>"]: <reason>".
func (e *ResponseError) Error() string {
	s := "pfc: " + e.Endpoint + ": invalid response"
	if e.Field != "" {
		s += ": field " + strconv.Quote(e.Field)
	}
	return s + ": " + e.Reason
}

// Unwrap returns ErrInvalidResponse.
func (e *ResponseError) Unwrap() error { return ErrInvalidResponse }

// DownloadTooLargeError is a download refused because it exceeds the
// client's WithMaxDownloadSize (or the call's FlowOptions.MaxDownloadSize).
// It matches ErrDownloadTooLarge.
type DownloadTooLargeError struct {
	// Name is what was downloaded, redacted: the job id (hosted), the
	// corrected file's name (pfccontainer) or the process id (bgcontainer).
	Name string
	// Limit is the bound in bytes.
	Limit int64
	// Written is how many bytes reached the writer before the download
	// stopped: 0 when the Content-Length already said too much. The file
	// variants leave nothing behind.
	Written int64
}

// Error returns "pfc: download of <Name>: larger than the limit of <Limit>
// bytes (WithMaxDownloadSize)".
func (e *DownloadTooLargeError) Error() string {
	return fmt.Sprintf("pfc: download of %s: larger than the limit of %d bytes (WithMaxDownloadSize)", e.Name, e.Limit)
}

// Unwrap returns ErrDownloadTooLarge.
func (e *DownloadTooLargeError) Unwrap() error { return ErrDownloadTooLarge }

// WaitTimeoutError reports a job that was not finished when
// WaitOptions.MaxWait ran out (a cancelled or expired context is reported
// as the context's own error instead). It matches ErrWaitTimeout.
type WaitTimeoutError struct {
	// JobID is the job waited for (redacted).
	JobID string
	// Status is the last status seen; empty if no poll succeeded.
	Status string
	// Last is the last record seen: a *hosted.Job or a
	// *bgcontainer.CheckResult; nil if no poll succeeded.
	Last any
	// Waited is how long the wait ran.
	Waited time.Duration
}

// Error returns "pfc: job <JobID> still <Status> after <Waited>", with
// Status "unknown" when no poll succeeded.
func (e *WaitTimeoutError) Error() string {
	state := e.Status
	if state == "" {
		state = "unknown"
	}
	return oneLine(fmt.Sprintf("pfc: job %s still %s after %s", e.JobID, oneLine(state, 32), e.Waited.Round(time.Millisecond)), 300)
}

// Unwrap returns ErrWaitTimeout.
func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }

// oneLine collapses whitespace runs (newlines included, so that a server's
// text cannot forge log lines) into single spaces and cuts s to at most
// max bytes on a rune boundary, marking a cut with "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max] + "…"
}

// Errors of bulk runs (see "Bulk runs"): match them with errors.Is; a
// manifest that cannot be used is also a *ManifestError (errors.As).
var (
	// ErrManifestInUse: another run, in this process or another, holds
	// the manifest (one run at a time per manifest). The run did nothing.
	ErrManifestInUse = errors.New("pfc: bulk manifest is in use by another run (one run at a time per manifest)")
	// ErrNotManifest: the file at the manifest's path is not a manifest
	// (its first line is no JSON object, or its last line, without a
	// newline, is no record); it is left as it is, and the run did
	// nothing.
	ErrNotManifest = errors.New("pfc: not a bulk manifest: its first line is no record, or its last line, without a newline, is not one (the file is left as it is)")
	// ErrJobCapReached: the run started BulkOptions.MaxStarts jobs and
	// stopped starting more; the files left are in
	// BulkReport.NotStarted, and a rerun with the same manifest goes on.
	// It is about the number of jobs, not about request rates.
	ErrJobCapReached = errors.New("pfc: bulk run reached its cap on jobs started (MaxStarts)")
	// ErrJobForgotten: a job recorded in a manifest as in flight is no
	// longer known to the service (not found, past its retention, or
	// failed), so its file is processed again (BulkReport.Redone).
	ErrJobForgotten = errors.New("pfc: the service no longer knows the job")
)

// ManifestError reports a bulk manifest that could not be opened, locked,
// read or written. Its chain holds the cause: ErrManifestInUse,
// ErrNotManifest, or the file system's error.
type ManifestError struct {
	// Path is the manifest's path.
	Path string
	// Op is "open", "lock", "read", "truncate" or "write".
	Op string
	// Err is the cause.
	Err error
}

// Error returns "pfc: bulk manifest <path>: <op>: <cause>".
func (e *ManifestError) Error() string {
	return fmt.Sprintf("pfc: bulk manifest %q: %s: %v", e.Path, e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *ManifestError) Unwrap() error { return e.Err }
