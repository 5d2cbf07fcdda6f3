package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Sentinel errors, one per class of failure. An *APIError unwraps to the
// sentinel of its status code, so callers test the class with errors.Is and
// get the details with errors.As.
var (
	// ErrBadRequest is the class of 400 and 422 responses.
	ErrBadRequest = errors.New("pfc: bad request")
	// ErrUnauthorized is the class of 401 and 403 responses.
	ErrUnauthorized = errors.New("pfc: unauthorized")
	// ErrNotFound is the class of 404 and 410 responses.
	ErrNotFound = errors.New("pfc: not found")
	// ErrTooLarge is the class of 413 responses.
	ErrTooLarge = errors.New("pfc: payload too large")
	// ErrRateLimited is the class of 429 responses.
	ErrRateLimited = errors.New("pfc: rate limited")
	// ErrServer is the class of every 5xx response.
	ErrServer = errors.New("pfc: server error")
	// ErrInvalidParameter is the class of client-side validation failures
	// (*ValidationError), reported before any request is sent.
	ErrInvalidParameter = errors.New("pfc: invalid parameter")
	// ErrStillProcessing is the class of a final HTTP 102 Processing
	// answer: the background-removal container's GET /DownloadImage says
	// so while the image is not ready. It is not a failure: poll again.
	ErrStillProcessing = errors.New("pfc: still processing")
	// ErrResponseHeaderTimeout is in the chain of the error of an attempt
	// whose response headers did not arrive within the client's response
	// header timeout (a silent server).
	ErrResponseHeaderTimeout = errors.New("pfc: timed out waiting for response headers")
	// ErrDownloadTooLarge is in the chain of the error of a download whose
	// body exceeds the client's size limit (WithMaxDownloadSize).
	ErrDownloadTooLarge = errors.New("pfc: download exceeds the size limit")
	// ErrTruncatedResponse is in the chain of the error of a call whose
	// answer arrived but was cut off before its end (the connection closed
	// before the declared Content-Length, was reset, or a read timed out
	// while the body was read): a JSON answer whose retries ran out (or
	// that was not retried: a request that must not be sent twice, whose
	// answer is then lost), or a download, which is never retried and
	// leaves nothing on the path of a file variant.
	ErrTruncatedResponse = errors.New("pfc: response cut off before its end")
)

// APIError is a response the service answered with an error status (or a
// redirect the caller did not expect). Every string in it is redacted: the
// API key, license keys and pre-signed URL signatures never appear.
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
	// error body carried one (a JSON "parameter" member).
	Parameter string
	// RequestID is the request id response header, when present (redacted,
	// at most 256 bytes).
	RequestID string
	// Body is a bounded (at most 4 KiB), redacted copy of the response body.
	Body []byte
	// Attempts is how many times the request was sent, retries included.
	Attempts int
}

// Error returns a one-line description:
// "pfc: GET https://host/v2/pfc?...: 400 Bad Request: <message> (code X, request id Y)".
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
	if msg := Excerpt(nil, e.Message, MaxQuotedMessage); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	var details []string
	if e.Parameter != "" {
		details = append(details, "parameter "+Excerpt(nil, e.Parameter, MaxQuotedID))
	}
	if e.Code != "" {
		details = append(details, "code "+Excerpt(nil, e.Code, MaxQuotedID))
	}
	if e.RequestID != "" {
		details = append(details, "request id "+Excerpt(nil, e.RequestID, MaxQuotedName))
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

// Unwrap returns the sentinel error of the status class (ErrStillProcessing,
// ErrBadRequest, ErrUnauthorized, ErrNotFound, ErrTooLarge, ErrRateLimited,
// ErrServer), or nil for a status outside those classes.
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

// FieldError is one invalid parameter, named as on the wire (or as the
// option field, for client options).
type FieldError struct {
	// Field is the parameter name.
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "<field>: <message>".
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// ValidationError lists every invalid parameter of a call, found before any
// request was sent.
type ValidationError struct {
	// Errors holds one entry per problem, in the order they were found.
	Errors []FieldError
}

// Error returns "pfc: invalid parameters: a: ...; b: ...".
func (e *ValidationError) Error() string { return ValidationMessage(e.Errors) }

// Unwrap returns ErrInvalidParameter.
func (e *ValidationError) Unwrap() error { return ErrInvalidParameter }

// Fields returns the names of the invalid parameters, each once, in the
// order they were first reported.
func (e *ValidationError) Fields() []string { return FieldNames(e.Errors) }

// FieldErrors collects validation problems so that one error reports all of
// them at once. The zero value is empty and ready to use.
type FieldErrors []FieldError

// Add records a problem with field; the message is fmt.Sprintf(format, args...).
func (f *FieldErrors) Add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Err returns a *ValidationError holding a copy of the collected problems,
// or nil (an untyped nil) when there are none.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &ValidationError{Errors: append([]FieldError(nil), f...)}
}
