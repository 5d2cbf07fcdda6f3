package pfccontainer

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// messageID is a log message id of the container. The container ties each
// error status to one (see the package documentation); the mock (and,
// where it sends one, the real container) puts it in the error body's
// "code".
type messageID = string

// The container's message ids that come with an error status.
const (
	msgNoContentType        messageID = "noContentTypeRequestMessage"     // 400, PUT /pfc
	msgBodyRequest          messageID = "bodyRequestMessage"              // 503, PUT /pfc
	msgTemporaryFileCreate  messageID = "temporaryFileCreationMessage"    // 503, PUT /pfc
	msgTemporaryFileWrite   messageID = "temporaryFileWritingMessage"     // 503, PUT /pfc
	msgNoID                 messageID = "noIdMessage"                     // 400, GET /pfc/
	msgInvalidID            messageID = "invalidIdMessage"                // 400, GET /pfc/{id}
	msgUnknownImageID       messageID = "unknownImageIdMessage"           // 400, GET /pfc/{id}
	msgUnknownPreset        messageID = "unknownPresetMessage"            // 400, GET /pfc/{id}
	msgTemporaryOutputFile  messageID = "temporaryOutputFileMessage"      // 503, GET /pfc/{id}
	msgTemporaryCloseOutput messageID = "temporaryCloseOutputFileMessage" // 503, GET /pfc/{id}
	msgProcessingPFCError   messageID = "processingPFCErrorMessage"       // 503, GET /pfc/{id}
	msgUnknownOutputType    messageID = "unknownOutputTypeMessage"        // 400 (mock), GET /pfc/{id}
)

// Sentinel errors for errors.Is, one per row family of the container's
// error table. An *Error matches its row's sentinel and, through its
// cause, the status class (pfc.ErrBadRequest, pfc.ErrServer, ...).
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
)

// endpoint names the container call an error comes from.
type endpoint = string

// The container's calls.
const (
	epUpload   endpoint = "PUT /pfc"
	epCorrect  endpoint = "GET /pfc/{imageKey}"
	epVersion  endpoint = "GET /version"
	epDownload endpoint = "GET corrected_url"
)

// row is one line of the container's error table.
type row struct {
	status    int // the status the table ties to the id
	sentinel  error
	retryable bool
}

// rows is the container's error table; the package documentation explains
// each retry decision.
var rows = map[messageID]row{
	msgNoContentType:        {http.StatusBadRequest, ErrUnsupportedContentType, false},
	msgBodyRequest:          {http.StatusServiceUnavailable, ErrBodyNotRead, true},
	msgTemporaryFileCreate:  {http.StatusServiceUnavailable, ErrTemporaryFile, true},
	msgTemporaryFileWrite:   {http.StatusServiceUnavailable, ErrTemporaryFile, true},
	msgNoID:                 {http.StatusBadRequest, ErrMissingImageKey, false},
	msgInvalidID:            {http.StatusBadRequest, ErrInvalidImageKey, false},
	msgUnknownImageID:       {http.StatusBadRequest, ErrUnknownImageKey, false},
	msgUnknownPreset:        {http.StatusBadRequest, ErrUnknownPreset, false},
	msgTemporaryOutputFile:  {http.StatusServiceUnavailable, ErrOutputFile, true},
	msgTemporaryCloseOutput: {http.StatusServiceUnavailable, ErrOutputFile, true},
	msgProcessingPFCError:   {http.StatusServiceUnavailable, ErrProcessing, false},
	msgUnknownOutputType:    {http.StatusBadRequest, ErrUnknownOutputType, false},
}

// Error is an error answer of the container that its error table
// explains. It matches (errors.Is) the row's sentinel (ErrUnknownPreset,
// ErrProcessing, ...) and, through Err, the status class (pfc.ErrBadRequest,
// pfc.ErrServer). Every string in it has passed the client's redactor.
type Error struct {
	// Endpoint is the call that failed: "PUT /pfc", "GET /pfc/{imageKey}",
	// "GET /version" or "GET corrected_url".
	Endpoint string
	// StatusCode is the HTTP status.
	StatusCode int
	// MessageID is the container's log message id for the condition, as
	// its API documentation's error table names it
	// ("unknownPresetMessage" ...).
	MessageID string
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

// Error returns "pfc: [<Endpoint>: ]<status>[ <text>][: <message id>][:
// <message>][ (request id <id>)]", the parts that are known, on one line
// (the message cut to 200 bytes; the whole of it is in Message).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("pfc: ")
	if e.Endpoint != "" {
		b.WriteString(string(e.Endpoint) + ": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
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
// boundary, marking a cut with "…", as pfc.APIError.Error does.
// It does not redact: use it on text already redacted.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }

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
func findMessageID(code, message string) (messageID, bool) {
	if _, ok := rows[code]; ok {
		return code, true
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
var rowOrder = func() []messageID {
	ids := make([]messageID, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b messageID) int {
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
	id, ok := findMessageID(e.Code, e.Message)
	return ok && !rows[id].retryable
}

// classify returns an *Error for an error answer whose body names one of
// the table's message ids (see messageID), or nil when the answer is not
// one of them (the caller returns the API error as it is). message and
// parameter come from the body, already redacted; cause is the API error.
func classify(status int, code, message, parameter string, cause error) *Error {
	id, ok := findMessageID(code, message)
	if !ok {
		return nil
	}
	r := rows[id]
	return &Error{StatusCode: status, MessageID: id, Message: message, Parameter: parameter,
		Retryable: r.retryable, Err: cause}
}

// fieldErrors collects problems; err returns nil or a *pfc.ValidationError.
type fieldErrors []pfc.FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, pfc.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
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
	return &pfc.ValidationError{Errors: append([]pfc.FieldError(nil), f...)}
}
