// Package hosted is the client of the hosted image correction Web API v2.
//
// The workflow is: upload a file to a pre-signed URL, start a correction
// job on /pfc with options, poll /status until the job is terminal (or
// receive a webhook, see package webhook), and download the corrected file
// (Download, or DownloadFile atomically). Client.Correct and
// Client.CorrectFile do all four steps in one call:
//
//	c, err := hosted.NewClient(apiKey, pfc.WithBaseURL("https://api.example.com/v2"))
//	if err != nil {
//		log.Fatal(err)
//	}
//	job, err := c.CorrectFile(ctx, "in.jpg", "out.jpg",
//		hosted.NewCorrection().WithPreset(hosted.PresetPro).WithLong(1200), nil)
//
// # Options
//
// CorrectionOptions holds every /pfc parameter. Fill the struct or chain
// setters from NewCorrection (they modify and return the same options;
// Clone derives variants). Correct and CorrectFile set the file key from
// their upload and check the rest first (ValidateForUpload); their
// client-side controls (wait bounds and progress, download limit) are a
// *pfc.FlowOptions, as in every client. Validate checks every documented
// range and dependency locally and reports all offending parameters at once in a
// *pfc.ValidationError; Plan reports which resize parameter and background mode
// the service will apply and which parameters it will ignore (the API
// resolves width > height > long > short > scale, and generative > image >
// solid colour > transparent). Set Strict to turn ignored parameters into
// validation errors.
//
// # Transport
//
// Every call takes a context and returns promptly when it is cancelled,
// also while waiting to retry. Connection errors, 408, 429 and 5xx other
// than 501 are retried with jittered exponential backoff; Retry-After is
// honoured up to a cap (pfc.WithMaxRetryAfter). With pfc.WithRateLimit
// every request to the API counts against the client's budget; the
// uploads to and downloads from pre-signed URLs do not. Each attempt waits at most 5
// minutes for the response headers (pfc.WithResponseHeaderTimeout), so a
// silent server cannot hang a call made without a context deadline (the
// bound also ends an answer or download whose bytes stop arriving for as
// long); an upload (timed from its end; during it only a stall for that
// long counts) and a download of any size or pace work. Uploads stream
// from an io.ReaderAt with an exact Content-Length and are never buffered.
// A JSON answer cut off mid-body (the connection closed before its
// Content-Length) is retried like a connection error; a download cut off
// is not (bytes already reached the writer): it fails with an error
// matching pfc.ErrTruncatedResponse, and CorrectFile leaves no file.
//
// Wait polls with jittered exponential delays (WithPolling, pfc.WaitOptions);
// its MaxWait also bounds a status request already in flight.
//
// The transport options are package pfc's (pfc.WithBaseURL,
// pfc.WithRetries ...), shared by the three clients; WithPolling is this
// package's own. An option of another client package does not compile.
//
// Downloads ask for the identity encoding, so Go's transport never
// inflates a compressed answer: the bytes written are the bytes on the
// wire, and pfc.WithMaxDownloadSize (or FlowOptions.MaxDownloadSize) bounds
// them.
//
// The API key is sent as X-API-KEY to the base URL's host only: never to
// pre-signed upload URLs, to corrected-file downloads, or across a redirect
// to another host. It never appears in errors or logs, and neither do
// pre-signed URL signatures.
//
// # Retries that meet their own first attempt
//
// None of the API's calls takes an idempotency key, so a retry whose
// first attempt did reach the service (its answer lost to a reset, a cut
// body or a 5xx after the fact) repeats it:
//
//   - /pfc (StartJob, Correct, CorrectFile) may start a second job.
//     With cache=true, the default, the service reuses the first job's
//     output, so the duplicate costs no processing (a webhook, if asked
//     for, may arrive for both); set pfc.WithRetries(-1, 0, 0) where even
//     that is unacceptable. With cache=false (WithCache(false)) a
//     duplicate would be a second full, billed job, so such a call is
//     resent only when its first attempt provably never reached the
//     service (no connection could be made, or a 429 refused it unread).
//   - Presets.Delete answers nil when a retried attempt gets 404 after
//     an attempt that may have removed the preset (its answer lost to a
//     reset or a 500, 502 or 504): it no longer exists either way. A 404
//     on the first attempt, or after attempts the service refused (429,
//     503), is pfc.ErrNotFound.
//   - Presets.Create cannot tell its own preset from another's: a retried
//     POST /presets/ whose first answer was lost gets 409 Conflict (an
//     *pfc.APIError with StatusCode 409 and Attempts > 1), and the preset the
//     first attempt created stays in the account without a file. To
//     clean up, list the presets (Presets.All), find the one with that
//     name (a preset whose file never arrived may say so in Extra, e.g.
//     "status": "awaiting_upload"), Presets.Delete it and Create again.
//     Set pfc.WithRetries(-1, 0, 0) on a client used for creating presets
//     when a 409 must mean "the name was taken before this call".
//
// # Errors
//
// Errors from the service are *pfc.APIError (status, method, redacted URL,
// message, code, the parameter the service blamed, request id, a bounded
// copy of the body); use errors.Is with pfc.ErrNotFound, pfc.ErrUnauthorized,
// pfc.ErrRateLimited and the other sentinels to classify them, and errors.As to
// read the fields. Bad input is a *pfc.ValidationError listing every offending
// parameter (pfc.FieldError), reported before any request. A job that ends
// FAILED or REJECTED is a *JobError, a wait that runs out of time a
// *pfc.WaitTimeoutError, a download over the limit a *pfc.DownloadTooLargeError.
// The sentinels are shared with pfccontainer and bgcontainer, so one
// errors.Is check works with all three clients.
//
// Every error message starts with "pfc: " and is redacted: text the
// service sent (a statusText, a job id, a malformed value) passes the same
// redactor as URLs, so a server that echoes the API key cannot put it into
// an error string. A webhook URL (WithWebhook) is redacted whole, with its
// path, its long path segments and its query values, since webhook tokens
// live in either. Printed (fmt, any verb) or logged (slog), a Client shows
// its base URL only, an UploadTicket or a Preset its pre-signed URL with the
// query values REDACTED, and CorrectionOptions its webhook URL's host.
//
// # Behaviour the API documentation leaves open
//
//   - The upload to the pre-signed URL is an HTTP PUT of the raw bytes with
//     Content-Type and Content-Length, as for the preset file upload.
//   - GetJob always sends noRedirect=true. A 302 that arrives anyway is
//     read as a COMPLETED job whose correctedFile is the Location.
//   - The job id is the last path segment of statusEndpoint: 1 to 128
//     ASCII letters, digits, '-', '_' or '.', not starting with '.'. One
//     outside that shape, or a statusEndpoint holding the API key in any
//     spelling, is a *pfc.ResponseError naming statusEndpoint.
//   - The bodies of the preset list, get and delete calls are not
//     documented: List accepts a JSON array or an object holding it under
//     "presets", "items" or "data"; undocumented preset fields are kept in
//     Preset.Extra.
//   - The crop rectangle of an autocropDetectOnly job is read from the
//     record's cropRect field (the name the SDK's mock uses).
//   - There is no default base URL: pfc.WithBaseURL is required, and it ends
//     with the version segment /v2 (NewClient refuses one without it).
//   - Job timestamps are encoded with milliseconds in UTC and decoded from
//     any RFC 3339 form.
//   - Inputs: the API documentation lists JPEG and PNG in RGB or RGBA;
//     greyscale, palette and 16-bit files are sent as they are (the mock
//     converts them to 8-bit RGB(A), as the service's decoder is expected
//     to), and a CMYK JPEG ends REJECTED. CorrectFile takes fileType video
//     for .mp4, .mov and .m4v paths.
package hosted
