package hostedsvc

import (
	"fmt"
	"net/http"
)

// Error codes of the JSON error body (the "code" field).
const (
	CodeUnauthorized     = "unauthorized"       // 401: X-API-KEY missing or not a valid key
	CodeForbidden        = "forbidden"          // 403: pre-signed URL signature invalid (tampered)
	CodeURLExpired       = "url_expired"        // 403: pre-signed URL expired
	CodeMissingParameter = "missing_parameter"  // 400: a required parameter is absent
	CodeInvalidParameter = "invalid_parameter"  // 400: a parameter has a bad type, value or combination
	CodeUnknownParameter = "unknown_parameter"  // 400: a parameter the endpoint does not define
	CodeInvalidBody      = "invalid_body"       // 400: a JSON body that does not decode
	CodeNotFound         = "not_found"          // 404: unknown job, file key, preset or route
	CodeMethodNotAllowed = "method_not_allowed" // 405: with an Allow header
	CodeConflict         = "conflict"           // 409: preset name already in use
	CodePayloadTooLarge  = "payload_too_large"  // 413: upload beyond the size limit
	CodeUnavailable      = "unavailable"        // 503: the server is shutting down
	CodeInternal         = "internal_error"     // 500
)

// APIError is an HTTP error answer. Its JSON form is the one error body of
// the mock: {"status": 400, "code": "invalid_parameter", "message":
// "width: must be between 32 and 10000", "parameter": "width"}, where
// parameter is present only when one parameter is to blame.
type APIError struct {
	// Status repeats the HTTP status code.
	Status int `json:"status"`
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Message explains the error; for parameters it starts with the name.
	Message string `json:"message"`
	// Parameter names the one parameter to blame, if any.
	Parameter string `json:"parameter,omitempty"`
}

// Error returns "hostedsvc: <status> <code>: <message>".
func (e *APIError) Error() string {
	return fmt.Sprintf("hostedsvc: %d %s: %s", e.Status, e.Code, e.Message)
}

func apiErr(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// paramErr is a 400 blaming one parameter; the message starts with its
// name.
func paramErr(code, param, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: code, Parameter: param,
		Message: param + ": " + fmt.Sprintf(format, args...)}
}

func notFound(param, format string, args ...any) *APIError {
	e := apiErr(http.StatusNotFound, CodeNotFound, format, args...)
	e.Parameter = param
	return e
}

// internalErr logs err and returns a 500 that does not repeat it: the
// detail holds paths of the server's disk.
func (s *Service) internalErr(err error) *APIError {
	s.log.Error("internal error", "error", err)
	return apiErr(http.StatusInternalServerError, CodeInternal, "internal error (details are in the server log)")
}

func unavailable() *APIError {
	return apiErr(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down")
}

// Job result codes: the "code" field of FAILED and REJECTED job records
// (0 for every other state).
const (
	JobCodeRejected         = 1000 // the Processor rejected the input (no code of its own)
	JobCodeFormat           = 1001 // not JPEG/PNG (image) or MP4/MOV (video), or a CMYK JPEG
	JobCodeFileTypeMismatch = 1002 // fileType of /pfc differs from the upload's, or from the content
	JobCodeDimensions       = 1003 // pixel size outside the correction limits
	JobCodeFileTooLarge     = 1004 // file too large for the operation (background removal: 30 MB)
	JobCodeUnknownPreset    = 1005 // preset name not built in and not an uploaded preset
	JobCodeBackgroundImage  = 1006 // bgFileKey is not a JPEG or PNG image
	JobCodeProcessingFailed = 2001 // the engine failed (e.g. a corrupt file)
	JobCodeNoEngine         = 2002 // no image processor is configured
	JobCodeShutdown         = 2003 // the server shut down while the job ran
)
