package bgcontainer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// Endpoint names the container call an error comes from.
type Endpoint string

// The container's endpoints.
const (
	EndpointAuthorize     Endpoint = "Authorize"
	EndpointStatus        Endpoint = "Status"
	EndpointSubmitImage   Endpoint = "SubmitImage"
	EndpointCheckImage    Endpoint = "CheckImage"
	EndpointDownloadImage Endpoint = "DownloadImage"
	EndpointRemoveImage   Endpoint = "RemoveImage"
)

// imageEndpoint reports whether e needs an activated container.
func (e Endpoint) imageEndpoint() bool {
	switch e {
	case EndpointSubmitImage, EndpointCheckImage, EndpointDownloadImage, EndpointRemoveImage:
		return true
	}
	return false
}

// byProcessID reports whether e addresses a job by its process id.
func (e Endpoint) byProcessID() bool {
	switch e {
	case EndpointCheckImage, EndpointDownloadImage, EndpointRemoveImage:
		return true
	}
	return false
}

// Sentinel errors of the container's answers, matched with errors.Is. An
// *Error matches the sentinel of its endpoint and status (the seed's error
// table) and also the class sentinel of its status (ErrBadRequest,
// ErrNotFound, ErrServer ...).
var (
	// ErrNotActivated: the container has no valid licence yet, so image
	// endpoints refuse to work (mock: 403 with code "not_activated"; any
	// 401 or 403 of an image endpoint, or the code on any status, matches).
	// Apply the licence with Client.Authorize.
	ErrNotActivated = errors.New("pfc: container not activated")
	// ErrInvalidProcessID: a process id that is not a UUID (400 from
	// CheckImage, DownloadImage or RemoveImage; also matched by the
	// client-side *ValidationError naming process_id).
	ErrInvalidProcessID = errors.New("pfc: invalid process id")
	// ErrJobNotFound: no job with this process id (404 from CheckImage,
	// DownloadImage or RemoveImage): unknown, or already removed.
	ErrJobNotFound = errors.New("pfc: job not found")
	// ErrInvalidFile: the submitted file is not an image the container
	// can process (404 from SubmitImage).
	ErrInvalidFile = errors.New("pfc: invalid image file")
	// ErrMissingFile: the request had no file part (422 from SubmitImage).
	ErrMissingFile = errors.New("pfc: image file missing")
	// ErrProcessingFailed: the job failed (500 from DownloadImage, or a
	// job whose status is failed).
	ErrProcessingFailed = errors.New("pfc: processing failed")
	// ErrStillProcessing: DownloadImage answered HTTP 102, the job is
	// queued or processing; try again later. It is the sentinel shared by
	// every pfc-go client (a final 102 is detected by the transport).
	ErrStillProcessing = apierr.ErrStillProcessing
	// ErrInvalidResponse: a 2xx answer whose body does not have the
	// documented shape (*ResponseError).
	ErrInvalidResponse = errors.New("pfc: invalid response")
)

// Class sentinels shared by every pfc-go client: an *APIError (and the
// *Error around it) matches the one of its status, a *ValidationError
// matches ErrInvalidParameter.
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
	// ErrDownloadTooLarge: a download exceeded WithMaxDownloadSize
	// (*DownloadTooLargeError).
	ErrDownloadTooLarge = apierr.ErrDownloadTooLarge
	// ErrTruncatedResponse: an answer cut off before its end (the
	// connection closed before the Content-Length, or was reset): a JSON
	// answer still cut off after the retries, or a download, which is
	// never retried (the file variants then leave no file).
	ErrTruncatedResponse = apierr.ErrTruncatedResponse
)

// APIError is the HTTP error answer behind every *Error (its Err), with
// the fields shared by every pfc-go client. Every string in it is
// redacted: it never holds the licence key. It unwraps to the sentinel of
// its status class (ErrBadRequest, ErrNotFound, ErrServer,
// ErrStillProcessing ...).
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Method is the HTTP method of the request.
	Method string
	// URL is the request URL, redacted (the licence key of /Authorize
	// reads REDACTED).
	URL string
	// Code is the error body's "code" when it had one (the mock's:
	// not_activated, invalid_file, invalid_parameter ...).
	Code string
	// Message is the error body's message when it had one.
	Message string
	// Parameter names the parameter the container blamed, when the error
	// body carried one (a JSON "parameter" member): the one to fix.
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
// "pfc: GET http://host:8000/CheckImage/<id>: 404 Not Found: <message> (parameter P, code X, request id Y)".
func (e *APIError) Error() string { return (*apierr.APIError)(e).Error() }

// Unwrap returns the sentinel of the status class, or nil for a status
// outside the classes.
func (e *APIError) Unwrap() error { return (*apierr.APIError)(e).Unwrap() }

// Error is an error answer of the container, classified by the seed's
// error table: it matches (errors.Is) the sentinel of its endpoint and
// status (ErrJobNotFound, ErrInvalidFile, ErrStillProcessing ...) when the
// table has one and, through Err, the class of its status (ErrNotFound,
// ErrServer ...). errors.As also finds the *APIError. Every string in it
// is redacted.
type Error struct {
	// Endpoint is the call that failed.
	Endpoint Endpoint
	// StatusCode is the HTTP status.
	StatusCode int
	// ProcessID is the job the call addressed, if any.
	ProcessID string
	// Code is the error body's "code", when it has one.
	Code string
	// Message is the error body's message, when it has one.
	Message string
	// Parameter names the parameter the body blames, when it does.
	Parameter string
	// RequestID is the request id response header, when present.
	RequestID string
	// Err is the HTTP error answer (an *APIError).
	Err error

	kind error // the endpoint's sentinel, or nil
}

// newError classifies an error answer of ep; cause is the *APIError
// (nil for a status handed over without one).
func newError(ep Endpoint, status int, code, message, parameter, processID, requestID string, cause error) *Error {
	if cause == nil {
		cause = &APIError{StatusCode: status, Code: code, Message: message, Parameter: parameter, RequestID: requestID}
	}
	return &Error{Endpoint: ep, StatusCode: status, Code: code, Message: message, Parameter: parameter,
		ProcessID: processID, RequestID: requestID, Err: cause, kind: classify(ep, status, code)}
}

// wrapErr turns the transport's *apierr.APIError for a call of ep into an
// *Error of this package around the public *APIError; other errors
// (context, network, validation) are returned as they are.
func wrapErr(ep Endpoint, processID string, err error) error {
	var ae *apierr.APIError
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	pub := APIError(*ae)
	return newError(ep, ae.StatusCode, ae.Code, ae.Message, ae.Parameter, processID, ae.RequestID, &pub)
}

// classify maps the seed's error table (and the mock's choices where it is
// silent) to a sentinel.
func classify(ep Endpoint, status int, code string) error {
	switch {
	case strings.EqualFold(code, "not_activated"):
		return ErrNotActivated
	case ep.imageEndpoint() && (status == http.StatusUnauthorized || status == http.StatusForbidden):
		return ErrNotActivated
	case status == http.StatusProcessing:
		return ErrStillProcessing
	case ep == EndpointSubmitImage && status == http.StatusNotFound:
		return ErrInvalidFile
	case ep == EndpointSubmitImage && status == http.StatusUnprocessableEntity:
		return ErrMissingFile
	case ep.byProcessID() && status == http.StatusBadRequest:
		return ErrInvalidProcessID
	case ep.byProcessID() && status == http.StatusNotFound:
		return ErrJobNotFound
	case ep == EndpointDownloadImage && status == http.StatusInternalServerError:
		return ErrProcessingFailed
	}
	return nil
}

// Error returns "pfc: <Endpoint>[ <process id>]: <status> <text>:
// <message> (parameter <p>, code <code>, request id <id>)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("pfc: ")
	b.WriteString(string(e.Endpoint))
	if e.ProcessID != "" {
		b.WriteString(" " + oneLine(e.ProcessID, apierr.MaxQuotedID))
	}
	b.WriteString(": " + strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if m := oneLine(e.Message, apierr.MaxQuotedMessage); m != "" {
		b.WriteString(": " + m)
	}
	var details []string
	if e.Parameter != "" {
		details = append(details, "parameter "+oneLine(e.Parameter, apierr.MaxQuotedID))
	}
	if e.Code != "" {
		details = append(details, "code "+oneLine(e.Code, apierr.MaxQuotedID))
	}
	if e.RequestID != "" {
		details = append(details, "request id "+oneLine(e.RequestID, apierr.MaxQuotedName))
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	return b.String()
}

// Unwrap returns the endpoint's sentinel (if the table has one) and Err.
func (e *Error) Unwrap() []error {
	if e.kind == nil {
		return []error{e.Err}
	}
	return []error{e.kind, e.Err}
}

// FieldError is one invalid argument, named as on the wire.
type FieldError struct {
	// Field is the parameter's wire name (process_id, mode, license_key
	// ...), or the name of the Go argument or option (image, dstPath,
	// BaseURL ...).
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "<field>: <message>".
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// ValidationError lists the invalid arguments of a call, found before any
// request was sent. It matches ErrInvalidParameter, and ErrInvalidProcessID
// when a process_id is among them.
type ValidationError struct {
	// Errors holds one entry per problem, in the order found.
	Errors []FieldError
}

// Error returns "pfc: invalid parameters: a: ...; b: ...".
func (e *ValidationError) Error() string { return apierr.ValidationMessage(e.Errors) }

// Unwrap returns ErrInvalidParameter, and ErrInvalidProcessID when
// process_id is invalid.
func (e *ValidationError) Unwrap() []error {
	errs := []error{ErrInvalidParameter}
	for _, fe := range e.Errors {
		if fe.Field == paramProcessID {
			return append(errs, ErrInvalidProcessID)
		}
	}
	return errs
}

// Fields returns the names of the invalid parameters, each once, in the
// order they were first reported.
func (e *ValidationError) Fields() []string { return apierr.FieldNames(e.Errors) }

// exportErr gives err this package's public error types: every exported
// function and method returns its error through it (see internal/apierr).
func exportErr(err error) error {
	return apierr.Export[APIError, FieldError, ValidationError](err)
}

// exportTo is exportErr on a named error result, for a deferred call.
func exportTo(err *error) { *err = exportErr(*err) }

// fieldErrors collects problems; err returns nil or a *ValidationError.
type fieldErrors []FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &ValidationError{Errors: append([]FieldError(nil), f...)}
}

// ResponseError is a 2xx answer whose body is not what the container
// documents: not JSON, or a field of the wrong type. It matches
// ErrInvalidResponse.
type ResponseError struct {
	// Endpoint is the call whose answer was invalid.
	Endpoint Endpoint
	// Field is the JSON member at fault; empty when the whole body is.
	Field string
	// Reason says what is wrong (redacted).
	Reason string
}

// Error returns "pfc: <Endpoint>: invalid response[: field <f>]: <reason>".
func (e *ResponseError) Error() string {
	s := "pfc: " + string(e.Endpoint) + ": invalid response"
	if e.Field != "" {
		s += ": field " + strconv.Quote(e.Field)
	}
	return s + ": " + e.Reason
}

// Unwrap returns ErrInvalidResponse.
func (e *ResponseError) Unwrap() error { return ErrInvalidResponse }

// oneLine collapses whitespace and cuts s to at most max bytes (on a rune
// boundary), marking a cut with "…". It does not redact: use it on text
// already redacted, and quote for the container's text.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }

// quote returns the container's text (or a caller's) as an error string
// quotes it: redacted first, then on one line and cut to at most max
// bytes, so that not even a prefix of the licence key survives the cut.
func (c *Client) quote(s string, max int) string { return apierr.Excerpt(c.redact, s, max) }
