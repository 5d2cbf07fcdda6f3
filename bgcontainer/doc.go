// Package bgcontainer is the client of the locally deployed GPU
// background-removal container (seed 002): licence activation
// (GET /Authorize/{license_key}, GET /Status), SubmitImage, CheckImage,
// DownloadImage and RemoveImage. It shares the transport, errors and
// redaction of the other pfc-go clients; package mockserver serves a mock of
// the container for tests.
//
// # Records
//
// LicenseStatus reads the keys "licensed org" and "expiration date" (with
// spaces) and parses both date forms: the year-month (YYYY-MM) of Authorize
// and the ISO 8601 timestamp of Status, keeping the raw text. Job reads
// preprocessing_enabled, which arrives as the string "true" or "false".
// CheckResult's processing_time (seconds) becomes a time.Duration. Unknown
// JSON members are ignored; a member of the wrong type gives a
// *ResponseError naming it (errors.Is ErrInvalidResponse).
//
// # Errors
//
// Arguments are checked before anything is sent: process ids must be
// canonical UUIDs (ValidateProcessID), the mode portrait or general, a
// preprocessing configuration one JSON object. Problems come back together
// as a *ValidationError naming each parameter (errors.Is
// ErrInvalidParameter, and ErrInvalidProcessID for process_id).
//
// Error answers are *APIError values matching, with errors.Is, the sentinel
// of the seed's error table for their endpoint and status:
//
//	any image endpoint  401/403, or code not_activated  ErrNotActivated
//	SubmitImage         404                              ErrInvalidFile
//	SubmitImage         422                              ErrMissingFile
//	Check/Download/Remove 400                            ErrInvalidProcessID
//	Check/Download/Remove 404                            ErrJobNotFound
//	DownloadImage       500                              ErrProcessingFailed
//	DownloadImage       102                              ErrStillProcessing
//
// and the class sentinel of their status (ErrBadRequest, ErrNotFound,
// ErrServer ...), shared with the other pfc-go clients.
//
// The licence key never appears in errors, logs or a printed Client: it is
// redacted from URLs (it is a path segment of /Authorize) and from every
// string taken from an answer.
//
// # Choices where the seed says "not shown"
//
// These match the mock (package mockserver), the only implementation this
// SDK is tested against:
//
//   - Before activation, image endpoints answer 403 with code
//     "not_activated"; the client also takes any 401 or 403 of an image
//     endpoint as ErrNotActivated, since the real status is not documented.
//   - /Authorize with a wrong key answers 200 with status "Unlicensed" (the
//     seed lists only 200, 400 and 500 for it); check LicenseStatus.IsLicensed.
//   - Defaults: mode general, no preprocessing, no postprocessing. The
//     client sends only the options that are set.
//   - preprocessing_config is a JSON object; the mock understands "denoise"
//     (bool, default true: a median filter before segmentation) and
//     "detect_faces" (bool, default true: portrait mode seeds the subject
//     from detected faces), applied when preprocessing is enabled, and
//     ignores other keys. Malformed JSON, or a value that is not an object,
//     is refused with 400.
//   - A bad mode or a preprocessing/postprocessing value other than true or
//     false is 400 naming the parameter.
//   - Error bodies are {"status", "code", "message", "parameter"} (the one
//     shape of every pfc-go mock); the client also reads other common shapes.
//   - Jobs stay until RemoveImage; previous_status may also be "queued".
//   - The result is a PNG at the input's upright size, scaled down beyond
//     5000 px on the long side.
package bgcontainer
