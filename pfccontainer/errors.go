package pfccontainer

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// MessageID is a log message id of the container. The container ties each
// error status to one (see the package documentation); the mock (and,
// where it sends one, the real container) puts it in the error body's
// "code".
type MessageID string

// The container's message ids that come with an error status (seed 001).
const (
	MsgNoContentType        MessageID = "noContentTypeRequestMessage"     // 400, PUT /pfc
	MsgBodyRequest          MessageID = "bodyRequestMessage"              // 503, PUT /pfc
	MsgTemporaryFileCreate  MessageID = "temporaryFileCreationMessage"    // 503, PUT /pfc
	MsgTemporaryFileWrite   MessageID = "temporaryFileWritingMessage"     // 503, PUT /pfc
	MsgNoID                 MessageID = "noIdMessage"                     // 400, GET /pfc/
	MsgInvalidID            MessageID = "invalidIdMessage"                // 400, GET /pfc/{id}
	MsgUnknownImageID       MessageID = "unknownImageIdMessage"           // 400, GET /pfc/{id}
	MsgUnknownPreset        MessageID = "unknownPresetMessage"            // 400, GET /pfc/{id}
	MsgTemporaryOutputFile  MessageID = "temporaryOutputFileMessage"      // 503, GET /pfc/{id}
	MsgTemporaryCloseOutput MessageID = "temporaryCloseOutputFileMessage" // 503, GET /pfc/{id}
	MsgProcessingPFCError   MessageID = "processingPFCErrorMessage"       // 503, GET /pfc/{id}
	MsgUnknownOutputType    MessageID = "unknownOutputTypeMessage"        // 400 (mock), GET /pfc/{id}
)

// Sentinel errors for errors.Is, one per row family of the container's
// error table. An *Error matches its row's sentinel and, through its
// cause, the status class (ErrBadRequest, ErrServer, ...).
var (
	ErrUnsupportedContentType = errors.New("pfc: content type not accepted (JPEG or PNG only)")
	ErrBodyNotRead            = errors.New("pfc: the container could not read the upload")
	ErrTemporaryFile          = errors.New("pfc: the container could not store the upload")
	ErrMissingImageKey        = errors.New("pfc: no image key given")
	ErrInvalidImageKey        = errors.New("pfc: image key fails the container's sanity check")
	ErrUnknownImageKey        = errors.New("pfc: unknown image key")
	ErrUnknownPreset          = errors.New("pfc: preset not uploaded or mounted")
	ErrUnknownOutputType      = errors.New("pfc: unknown output type")
	ErrOutputFile             = errors.New("pfc: the container could not write the output file")
	ErrProcessing             = errors.New("pfc: the engine failed on the image")
	// ErrInvalidResponse: a 2xx answer whose body is not what the
	// container documents (*ResponseError): not JSON, a member of the
	// wrong type or missing, a download that is not a JPEG or PNG file.
	// The same sentinel name as bgcontainer's.
	ErrInvalidResponse = errors.New("pfc: invalid response")
)

// Endpoint names the container call an error comes from, as in
// bgcontainer.Error.
type Endpoint string

// The container's calls.
const (
	EndpointUpload   Endpoint = "PUT /pfc"
	EndpointCorrect  Endpoint = "GET /pfc/{imageKey}"
	EndpointVersion  Endpoint = "GET /version"
	EndpointDownload Endpoint = "GET corrected_url"
)

// Status classes, shared with the other clients of this module.
var (
	ErrBadRequest       = apierr.ErrBadRequest       // 400, 422
	ErrUnauthorized     = apierr.ErrUnauthorized     // 401, 403 (an authenticating proxy's)
	ErrNotFound         = apierr.ErrNotFound         // 404, 410
	ErrTooLarge         = apierr.ErrTooLarge         // 413
	ErrRateLimited      = apierr.ErrRateLimited      // 429 (a proxy's)
	ErrServer           = apierr.ErrServer           // 5xx
	ErrInvalidParameter = apierr.ErrInvalidParameter // client-side validation (*ValidationError)
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

// APIError is returned for every error status of the container (or of a
// proxy in front of it) that its error table does not explain, and for a
// failed download; an answer the table explains is an *Error whose Err is
// the *APIError. Every string in it is redacted. Use errors.As to inspect
// it and errors.Is with the status classes above (it unwraps to the
// sentinel of its status class). It has the fields of hosted.APIError.
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Method is the HTTP method of the request.
	Method string
	// URL is the request URL, redacted.
	URL string
	// Code is the error body's "code" when it had one: for the container
	// mock, the log message id of the condition.
	Code string
	// Message is the error body's message when it had one.
	Message string
	// Parameter names the query parameter the container blamed, when the
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
// "pfc: GET http://host/pfc/key?...: 503 Service Unavailable: <message> (code X, request id Y, 3 attempts)".
func (e *APIError) Error() string { return (*apierr.APIError)(e).Error() }

// Unwrap returns the sentinel of the status class (ErrBadRequest,
// ErrNotFound, ErrTooLarge, ErrServer, ...), or nil for a status outside
// those classes.
func (e *APIError) Unwrap() error { return (*apierr.APIError)(e).Unwrap() }

// exportErr gives err this package's public error types: every exported
// function and method returns its error through it (see internal/apierr).
func exportErr(err error) error {
	return apierr.Export[APIError, FieldError, ValidationError](err)
}

// exportTo is exportErr on a named error result, for a deferred call.
func exportTo(err *error) { *err = exportErr(*err) }

// DownloadTooLargeError reports a download refused because the corrected
// file exceeds the bound set with WithMaxDownloadSize. It matches
// ErrDownloadTooLarge with errors.Is.
type DownloadTooLargeError struct {
	// FileName is the corrected file's name in /output (redacted).
	FileName string
	// Limit is the bound in bytes.
	Limit int64
	// Written is how many bytes reached the writer before the download was
	// stopped: 0 when the Content-Length already said too much. Download's
	// dst holds that partial content; DownloadFile and CorrectFile leave
	// nothing behind.
	Written int64
}

// Error says which file was over which limit.
func (e *DownloadTooLargeError) Error() string {
	return fmt.Sprintf("pfc: download of %s: larger than the limit of %d bytes (WithMaxDownloadSize)", e.FileName, e.Limit)
}

// Unwrap returns ErrDownloadTooLarge.
func (e *DownloadTooLargeError) Unwrap() error { return ErrDownloadTooLarge }

// row is one line of the container's error table.
type row struct {
	status    int // the status the table ties to the id
	sentinel  error
	retryable bool
}

// rows is the container's error table; the package documentation explains
// each retry decision.
var rows = map[MessageID]row{
	MsgNoContentType:        {http.StatusBadRequest, ErrUnsupportedContentType, false},
	MsgBodyRequest:          {http.StatusServiceUnavailable, ErrBodyNotRead, true},
	MsgTemporaryFileCreate:  {http.StatusServiceUnavailable, ErrTemporaryFile, true},
	MsgTemporaryFileWrite:   {http.StatusServiceUnavailable, ErrTemporaryFile, true},
	MsgNoID:                 {http.StatusBadRequest, ErrMissingImageKey, false},
	MsgInvalidID:            {http.StatusBadRequest, ErrInvalidImageKey, false},
	MsgUnknownImageID:       {http.StatusBadRequest, ErrUnknownImageKey, false},
	MsgUnknownPreset:        {http.StatusBadRequest, ErrUnknownPreset, false},
	MsgTemporaryOutputFile:  {http.StatusServiceUnavailable, ErrOutputFile, true},
	MsgTemporaryCloseOutput: {http.StatusServiceUnavailable, ErrOutputFile, true},
	MsgProcessingPFCError:   {http.StatusServiceUnavailable, ErrProcessing, false},
	MsgUnknownOutputType:    {http.StatusBadRequest, ErrUnknownOutputType, false},
}

// Retryable reports whether retrying a request that failed with id can
// help (see the package documentation); false for an unknown id.
func (id MessageID) Retryable() bool { return rows[id].retryable }

// Error is an error answer of the container that its error table
// explains. It matches (errors.Is) the row's sentinel (ErrUnknownPreset,
// ErrProcessing, ...) and, through Err, the status class (ErrBadRequest,
// ErrServer). Every string in it has passed the client's redactor.
type Error struct {
	// Endpoint is the call that failed.
	Endpoint Endpoint
	// StatusCode is the HTTP status.
	StatusCode int
	// MessageID is the container's message id for the condition.
	MessageID MessageID
	// Message is the container's explanation, when its body had one.
	Message string
	// Parameter names the query parameter to blame, if any.
	Parameter string
	// Retryable reports whether the same request may succeed later (the
	// condition is transient: memory or disk pressure). The client's own
	// retries have been spent when the error is returned.
	Retryable bool
	// RequestID is the request id response header, when present.
	RequestID string
	// Err is the underlying error: the API error of the response.
	Err error
}

// Error returns "pfc: <endpoint>: <status>: <message id>: <message>
// (request id <id>)", the parts that are known, on one line (the message
// cut to 200 bytes; the whole of it is in Message).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("pfc: ")
	if e.Endpoint != "" {
		b.WriteString(string(e.Endpoint) + ": ")
	}
	fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.MessageID != "" {
		b.WriteString(": " + string(e.MessageID))
	}
	if m := oneLine(e.Message, apierr.MaxQuotedMessage); m != "" {
		b.WriteString(": " + m)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + oneLine(e.RequestID, apierr.MaxQuotedName) + ")")
	}
	return b.String()
}

// oneLine collapses whitespace (newlines included, so a server's message
// cannot forge log lines) and cuts s to at most max bytes on a rune
// boundary, marking a cut with "…", as APIError.Error does.
// It does not redact: use it on text already redacted.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }

// ResponseError is a 2xx answer whose body is not what the container
// documents. It matches ErrInvalidResponse; its fields are those of
// bgcontainer.ResponseError.
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

// Unwrap returns the row's sentinel and the cause.
func (e *Error) Unwrap() []error {
	var errs []error
	if r, ok := rows[e.MessageID]; ok {
		errs = append(errs, r.sentinel)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// messageID finds the container's message id of an error body: its code
// (what the mock sends) or, since the real container's body shape is not
// published, the first id of the table its message quotes.
func messageID(code, message string) (MessageID, bool) {
	if _, ok := rows[MessageID(code)]; ok {
		return MessageID(code), true
	}
	for _, id := range rowOrder {
		if strings.Contains(message, string(id)) {
			return id, true
		}
	}
	return "", false
}

// rowOrder is the table's ids, longest first, so that an id that is a
// prefix of another cannot shadow it when a message is scanned.
var rowOrder = func() []MessageID {
	ids := make([]MessageID, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b MessageID) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(string(a), string(b))
	})
	return ids
}()

// permanent is the transport's Request.Permanent hook of every call: an
// answer the transport would retry (5xx) is final when the table says no
// retry can help (processingPFCErrorMessage: the engine failed on this
// image). Other 5xx, a proxy's 502 or 503 while the container restarts
// included, are retried.
func permanent(e *apierr.APIError) bool {
	id, ok := messageID(e.Code, e.Message)
	return ok && !rows[id].retryable
}

// classify returns an *Error for an error answer whose body names one of
// the table's message ids (see messageID), or nil when the answer is not
// one of them (the caller returns the API error as it is). message and
// parameter come from the body, already redacted; cause is the API error.
func classify(status int, code, message, parameter string, cause error) *Error {
	id, ok := messageID(code, message)
	if !ok {
		return nil
	}
	r := rows[id]
	return &Error{StatusCode: status, MessageID: id, Message: message, Parameter: parameter,
		Retryable: r.retryable, Err: cause}
}

// IsRetryable reports whether err is an *Error whose condition is
// transient, so that the same call may succeed later.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// FieldError is one invalid parameter of a ValidationError.
type FieldError struct {
	// Field is the parameter's wire name (e.g. "outputQuality",
	// "skip-exif-software", "imageKey"), or the name of the Go argument or
	// option (srcPath, BaseURL ...).
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error returns "<field>: <message>".
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// ValidationError lists every invalid parameter of a call, found before
// any request was sent. It matches ErrInvalidParameter with errors.Is.
type ValidationError struct {
	// Errors holds one entry per problem; the options' problems in the
	// order of the container's parameter table.
	Errors []FieldError
}

// Error returns "pfc: invalid parameters: a: ...; b: ...".
func (e *ValidationError) Error() string { return apierr.ValidationMessage(e.Errors) }

// Unwrap returns ErrInvalidParameter.
func (e *ValidationError) Unwrap() error { return ErrInvalidParameter }

// Fields returns the names of the invalid parameters, each once, in the
// order they were first reported.
func (e *ValidationError) Fields() []string { return apierr.FieldNames(e.Errors) }

// fieldErrors collects problems; err returns nil or a *ValidationError.
type fieldErrors []FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) has(field string) bool {
	for _, fe := range f {
		if fe.Field == field {
			return true
		}
	}
	return false
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &ValidationError{Errors: append([]FieldError(nil), f...)}
}
