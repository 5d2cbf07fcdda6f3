// Package hosted is the client of the hosted image correction Web API v2.
//
// The workflow is: upload a file to a pre-signed URL, start a correction
// job on /pfc with options, poll /status until the job is terminal (or
// receive a webhook, see package webhook), and download the corrected file.
// Client.Correct and Client.CorrectFile do all four steps in one call:
//
//	c, err := hosted.NewClient(apiKey, hosted.WithBaseURL("https://api.example.com/v2"))
//	...
//	job, err := c.CorrectFile(ctx, "in.jpg", "out.jpg",
//		hosted.NewCorrection().WithPreset(hosted.PresetPro).ResizeLong(1200))
//
// # Options
//
// CorrectionOptions holds every /pfc parameter. Fill the struct or chain
// setters from NewCorrection (they modify and return the same options;
// Clone derives variants). Correct and CorrectFile set the file key from
// their upload and check the rest first (ValidateForUpload); they take
// per-call options too: WithProgress, WithWait, WithDownloadLimit. Validate checks every documented range and dependency
// locally and reports all offending parameters at once in a
// *ValidationError; Plan reports which resize parameter and background mode
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
// honoured up to a cap (WithMaxRetryAfter). Each attempt waits at most 5
// minutes for the response headers (WithResponseHeaderTimeout), so a
// silent server cannot hang a call made without a context deadline; reading
// a body, such as a large download, is not limited by it. Uploads stream
// from an io.ReaderAt with an exact Content-Length and are never buffered.
//
// Wait polls with jittered exponential delays (WithPolling, WaitOptions);
// its MaxWait also bounds a status request already in flight.
//
// The client options (WithBaseURL, WithHTTPClient, WithLogger,
// WithRetries, WithMaxRetryAfter, WithUserAgent, WithResponseHeaderTimeout,
// WithPolling, WithMaxDownloadSize) are the same, with the same names and
// behaviour, in the pfccontainer and bgcontainer packages.
//
// Downloads ask for the identity encoding, so Go's transport never
// inflates a compressed answer: the bytes written are the bytes on the
// wire, and WithMaxDownloadSize (or the per-call WithDownloadLimit) bounds
// them.
//
// The API key is sent as X-API-KEY to the base URL's host only: never to
// pre-signed upload URLs, to corrected-file downloads, or across a redirect
// to another host. It never appears in errors or logs, and neither do
// pre-signed URL signatures.
//
// # Errors
//
// Errors from the service are *APIError (status, method, redacted URL,
// message, code, the parameter the service blamed, request id, a bounded
// copy of the body); use errors.Is with ErrNotFound, ErrUnauthorized,
// ErrRateLimited and the other sentinels to classify them, and errors.As to
// read the fields. Bad input is a *ValidationError listing every offending
// parameter (FieldError), reported before any request. A job that ends
// FAILED or REJECTED is a *JobError, a wait that runs out of time a
// *WaitTimeoutError, a download over the limit a *DownloadTooLargeError.
// The sentinels are shared with pfccontainer and bgcontainer, so one
// errors.Is check works with all three clients.
//
// Every error message starts with "pfc: " and is redacted: text the
// service sent (a statusText, a job id, a malformed value) passes the same
// redactor as URLs, so a server that echoes the API key cannot put it into
// an error string.
//
// # Behaviour the API documentation leaves open
//
//   - The upload to the pre-signed URL is an HTTP PUT of the raw bytes with
//     Content-Type and Content-Length, as for the preset file upload.
//   - GetJob always sends noRedirect=true. A 302 that arrives anyway is
//     read as a COMPLETED job whose correctedFile is the Location.
//   - The bodies of the preset list, get and delete calls are not
//     documented: List accepts a JSON array or an object holding it under
//     "presets", "items" or "data"; undocumented preset fields are kept in
//     Preset.Extra.
//   - The crop rectangle of an autocropDetectOnly job is read from the
//     record's cropRect field (the name the SDK's mock uses).
//   - There is no default base URL: WithBaseURL is required, and it ends
//     with the version segment /v2 (NewClient refuses one without it).
//   - Job timestamps are encoded with milliseconds in UTC and decoded from
//     any RFC 3339 form.
package hosted
