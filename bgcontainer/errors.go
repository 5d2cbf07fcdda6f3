package bgcontainer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Endpoint names the container call an error comes from.
type endpoint string

// The container's endpoints.
const (
	epAuthorize     endpoint = "Authorize"
	epStatus        endpoint = "Status"
	epSubmitImage   endpoint = "SubmitImage"
	epCheckImage    endpoint = "CheckImage"
	epDownloadImage endpoint = "DownloadImage"
	epRemoveImage   endpoint = "RemoveImage"
)

// imageEndpoint reports whether e needs an activated container.
func (e endpoint) imageEndpoint() bool {
	switch e {
	case epSubmitImage, epCheckImage, epDownloadImage, epRemoveImage:
		return true
	}
	return false
}

// byProcessID reports whether e addresses a job by its process id.
func (e endpoint) byProcessID() bool {
	switch e {
	case epCheckImage, epDownloadImage, epRemoveImage:
		return true
	}
	return false
}

// Sentinel errors of the container's answers, matched with errors.Is. An
// *Error matches the sentinel of its endpoint and status (the API documentation's error
// table) and also the class sentinel of its status (pfc.ErrBadRequest,
// pfc.ErrNotFound, pfc.ErrServer ...).
var (
	// ErrNotActivated: the container has no valid licence yet, so image
	// endpoints refuse to work (mock: 403 with code "not_activated"; any
	// 401 or 403 of an image endpoint, or the code on any status, matches).
	// Apply the licence with Client.Authorize. It is a credential problem:
	// it matches pfc.ErrUnauthorized too, as does a *LicenseError.
	ErrNotActivated error = &classError{"pfc: container not activated", pfc.ErrUnauthorized}
	// ErrInvalidProcessID: a process id that is not a UUID (400 from
	// CheckImage, DownloadImage or RemoveImage; also matched by the
	// client-side *pfc.ValidationError naming process_id).
	ErrInvalidProcessID = errors.New("pfc: invalid process id")
	// ErrJobNotFound: no job with this process id (404 from CheckImage,
	// DownloadImage or RemoveImage): unknown, or already removed.
	ErrJobNotFound = errors.New("pfc: job not found")
	// ErrInvalidFile: the submitted file is not an image the container
	// can process (404 from SubmitImage).
	ErrInvalidFile = errors.New("pfc: invalid image file")
	// ErrMissingFile: the request had no file part (422 from SubmitImage).
	ErrMissingFile = errors.New("pfc: image file missing")
)

// classError is a sentinel of this package inside a class of package pfc:
// errors.Is finds both.
type classError struct {
	msg   string
	class error
}

func (e *classError) Error() string { return e.msg }
func (e *classError) Unwrap() error { return e.class }

// Error is an error answer of the container, classified by the API documentation's
// error table: it matches (errors.Is) the sentinel of its endpoint and
// status (ErrJobNotFound, ErrInvalidFile, pfc.ErrStillProcessing ...) when the
// table has one and, through Err, the class of its status (pfc.ErrNotFound,
// pfc.ErrServer ...). errors.As also finds the *pfc.APIError. Every string in it
// is redacted.
type Error struct {
	// Endpoint is the call that failed: "Authorize", "Status",
	// "SubmitImage", "CheckImage", "DownloadImage" or "RemoveImage".
	Endpoint string
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
	// Err is the HTTP error answer (an *pfc.APIError).
	Err error

	kind error // the endpoint's sentinel, or nil
}

// newError classifies an error answer of ep; cause is the *pfc.APIError
// (nil for a status handed over without one).
func newError(ep endpoint, status int, code, message, parameter, processID, requestID string, cause error) *Error {
	if cause == nil {
		cause = &pfc.APIError{StatusCode: status, Code: code, Message: message, Parameter: parameter, RequestID: requestID}
	}
	return &Error{Endpoint: string(ep), StatusCode: status, Code: code, Message: message, Parameter: parameter,
		ProcessID: processID, RequestID: requestID, Err: cause, kind: classify(ep, status, code)}
}

// wrapErr turns the transport's *pfc.APIError for a call of ep into an
// *Error of this package around it; other errors
// (context, network, validation) are returned as they are.
func wrapErr(ep endpoint, processID string, err error) error {
	var ae *apierr.APIError
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	return newError(ep, ae.StatusCode, ae.Code, ae.Message, ae.Parameter, processID, ae.RequestID, ae)
}

// classify maps the API documentation's error table (and the mock's choices where it is
// silent) to a sentinel.
func classify(ep endpoint, status int, code string) error {
	switch {
	case strings.EqualFold(code, "not_activated"):
		return ErrNotActivated
	case ep.imageEndpoint() && (status == http.StatusUnauthorized || status == http.StatusForbidden):
		return ErrNotActivated
	case status == http.StatusProcessing:
		return pfc.ErrStillProcessing
	case ep == epSubmitImage && status == http.StatusNotFound:
		return ErrInvalidFile
	case ep == epSubmitImage && status == http.StatusUnprocessableEntity:
		return ErrMissingFile
	case ep.byProcessID() && status == http.StatusBadRequest:
		return ErrInvalidProcessID
	case ep.byProcessID() && status == http.StatusNotFound:
		return ErrJobNotFound
	case ep == epDownloadImage && status == http.StatusInternalServerError:
		return pfc.ErrJobFailed
	}
	return nil
}

// Error returns "pfc: <Endpoint>[ <process id>]: <status>[ <text>][:
// <message>][ (<details>)]", the details being those known of "parameter
// <p>", "code <code>" and "request id <id>".
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

// fieldErrors collects problems; err returns nil or a *pfc.ValidationError.
type fieldErrors []pfc.FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, pfc.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return invalid(append([]pfc.FieldError(nil), f...)...)
}

// invalid returns the *pfc.ValidationError of errs; when one of them names
// process_id the error also matches ErrInvalidProcessID.
func invalid(errs ...pfc.FieldError) error {
	ve := &pfc.ValidationError{Errors: errs}
	for _, fe := range errs {
		if fe.Field == paramProcessID {
			return &invalidProcessID{ve}
		}
	}
	return ve
}

// invalidProcessID is a *pfc.ValidationError naming process_id, which
// also matches ErrInvalidProcessID.
type invalidProcessID struct{ ve *pfc.ValidationError }

func (e *invalidProcessID) Error() string   { return e.ve.Error() }
func (e *invalidProcessID) Unwrap() []error { return []error{e.ve, ErrInvalidProcessID} }

// oneLine collapses whitespace and cuts s to at most max bytes (on a rune
// boundary), marking a cut with "…". It does not redact: use it on text
// already redacted, and quote for the container's text.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }

// quote returns the container's text (or a caller's) as an error string
// quotes it: redacted first, then on one line and cut to at most max
// bytes, so that not even a prefix of the licence key survives the cut.
func (c *Client) quote(s string, max int) string { return apierr.Excerpt(c.redact, s, max) }
