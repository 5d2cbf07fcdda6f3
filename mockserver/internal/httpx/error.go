package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// Error codes of the JSON error body (the "code" field), shared by every
// backend so that a client sees one error shape from all three mocks.
const (
	CodeUnauthorized     = "unauthorized"       // 401: credential missing or not valid
	CodeForbidden        = "forbidden"          // 403: pre-signed URL signature invalid (tampered)
	CodeURLExpired       = "url_expired"        // 403: pre-signed URL expired
	CodeNotActivated     = "not_activated"      // 403: the container has no valid licence yet
	CodeMissingParameter = "missing_parameter"  // 400: a required parameter is absent
	CodeInvalidParameter = "invalid_parameter"  // 400: a parameter has a bad type, value or combination
	CodeUnknownParameter = "unknown_parameter"  // 400: a parameter the endpoint does not define
	CodeInvalidBody      = "invalid_body"       // 400: a body that does not decode
	CodeNotFound         = "not_found"          // 404: unknown resource or route
	CodeMethodNotAllowed = "method_not_allowed" // 405: with an Allow header
	CodeConflict         = "conflict"           // 409
	CodePayloadTooLarge  = "payload_too_large"  // 413: body beyond the size limit
	CodeUnprocessable    = "unprocessable"      // 422: a required part of the body is missing
	CodeRateLimited      = "rate_limited"       // 429: over the request limit (with Retry-After)
	CodeUnavailable      = "unavailable"        // 503: shutting down, or a temporary failure
	CodeInternal         = "internal_error"     // 500
)

// Error is an HTTP error answer. Its JSON form is the one error body of
// every mock backend: {"status": 400, "code": "invalid_parameter",
// "message": "width: must be between 32 and 10000", "parameter": "width"},
// where parameter is present only when one parameter is to blame.
type Error struct {
	// Status repeats the HTTP status code.
	Status int `json:"status"`
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Message explains the error; for parameters it starts with the name.
	Message string `json:"message"`
	// Parameter names the one parameter to blame, if any.
	Parameter string `json:"parameter,omitempty"`
}

// Error returns "<status> <code>: <message>".
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Errorf returns an *Error with a formatted message.
func Errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// ParamError is an error blaming one parameter; the message starts with
// its name.
func ParamError(status int, code, param, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Parameter: param,
		Message: param + ": " + fmt.Sprintf(format, args...)}
}

// Marshal is json.Marshal without HTML escaping, so URLs keep their '&'.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"status":500,"code":"internal_error","message":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WriteError writes e as the JSON error body with its status.
func WriteError(w http.ResponseWriter, e *Error) { WriteJSON(w, e.Status, e) }

// Allow answers 405 (with an Allow header) unless r's method is one of
// methods, and reports whether the handler may go on.
func Allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	WriteError(w, Errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
		"method %s not allowed; use %s", r.Method, strings.Join(methods, " or ")))
	return false
}

// AsError returns err as an *Error when it is one (errors.As); any other
// error is logged on log (it may hold server paths) and answered as a
// 500 internal_error that does not repeat it. A nil err gives nil.
func AsError(log *slog.Logger, err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(log, err)
}

// Internal logs err on log and returns a 500 internal_error that does not
// repeat it: the detail may hold paths of the server's disk.
func Internal(log *slog.Logger, err error) *Error {
	if log != nil {
		log.Error("internal error", "error", err)
	}
	return Errorf(http.StatusInternalServerError, CodeInternal, "internal error (details are in the server log)")
}
