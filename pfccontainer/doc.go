// Package pfccontainer is the client of the locally deployed correction
// container: upload an image (PUT /pfc), correct it (GET
// /pfc/{imageKey}) into a URL of the corrected file and a detected scene,
// download the result, read the engine version (GET /version), and direct
// file mode with mounted /input and /output directories. It reads like a
// small sibling of package hosted: the same options, options with
// chainable setters, local validation that names every bad field at once,
// a Plan of what the container will do, typed records and typed errors.
//
//	c, err := pfccontainer.NewClient(pfc.WithBaseURL("http://localhost:80"))
//	corr, err := c.CorrectFile(ctx, "in.jpg", "out.jpg", pfccontainer.NewCorrection().WithLong(2000), nil)
//
// Correct is that flow over an io.ReaderAt and an io.Writer. Step by
// step: Upload or UploadFile return an imageKey, GetCorrection (GET
// /pfc/{imageKey}) a *Correction, Download or DownloadFile (atomic) fetch
// the file. Version and Health read GET /version. Client.Direct works on
// the mounted directories instead of HTTP transfers (see Direct). Tests
// use pfcmock.Start, an in-process mock with a ready client.
//
// # Authentication
//
// The container documents none: it is licensed by files mounted in
// /sdk_license (without a valid licence the "corrected" file is the
// original), and NewClient takes no key. Keep the port on a private
// network, or behind an authenticating proxy (a pfc.WithHTTPClient
// transport can add its header, for the proxy's host only).
//
// # Transport
//
// The options are package pfc's transport options. The container has no
// jobs (no WithPolling, no FlowOptions.Wait): GET /pfc/{imageKey} answers
// once the image is corrected, so the response header timeout (default 5
// minutes per attempt) must cover the slowest correction; a context
// deadline bounds the whole call. Connection errors, 408, 429 and 5xx but
// 501 are retried with jittered backoff (Retry-After honoured, capped),
// except the rows below that no retry can help; so is a JSON answer cut
// off mid-body, but not a download (bytes reached the writer: an error
// matching pfc.ErrTruncatedResponse, and no file left). PUT /pfc and GET
// /pfc/{imageKey} are retried although not idempotent: an attempt that
// reached the container leaves at most an orphan file (swept).
//
// # Replicas
//
// pfc.WithReplicas (base URLs) or pfc.WithReplicaHost (one name of several
// addresses, resolved every 30 s) spread a client over replicas. An upload goes to
// the one with the fewest calls in flight for its weight (pfc.WithReplicaWeight),
// its imageKey's correction to the same one (corrected URLs are rebased on it). A
// replica refusing connections, not answering within the response header timeout
// or answering 5xx three calls running is set aside until GET /version answers. A
// call moves only when it provably never reached a replica; a CorrectFile whose
// replica is then down, silent past that timeout or answering 5xx (retries spent;
// not processingPFCErrorMessage) is done again on another. An imageKey not
// uploaded by this client is looked for on each replica, past one that fails so or
// answers no JSON (set-aside ones last); Version and Health ask a working one.
//
// # Options
//
// CorrectionOptions carries every query parameter of GET /pfc/{imageKey}.
// Validate reports every invalid field in one *pfc.ValidationError
// (errors.Is pfc.ErrInvalidParameter). Plan says which resize parameter
// applies, by the container's priority width > height > long > short >
// scale, and which parameters it will ignore (skip under AI preset
// selection, outputQuality for PNG output); Strict turns those into
// validation errors.
//
// # Download URLs
//
// corrected_url is built on the container's PFC_SITE_URL (default
// http://localhost), which may name a host this client cannot reach.
// Client.RebaseCorrectedURLs returns a client that moves it onto its own
// base URL, keeping the /output/... tail (Correction.ReportedURL keeps the
// container's answer); leave it off when PFC_SITE_URL names a reachable
// gateway that serves /output elsewhere. Downloads ask for the identity
// encoding and carry no credential and no header of the caller.
//
// # Direct file mode
//
// With /input and /output mounted from directories this program can
// reach, Direct.Put copies a file in atomically (a hidden temporary name
// in the input directory, renamed once complete, so the container never
// reads half a file; the container refuses keys starting with a dot and
// its sweep leaves them alone), Direct.GetCorrection calls GET /pfc/{file
// name} with preserveInputFileName=true unless the options say otherwise,
// and returns the correction, its Path the result in the output directory. PutFile,
// CorrectFile and the bulk runs name each file they place
// "pfc-<token>-<n>-<its name>" (token random per call or run, n per
// file), so callers sharing a container never meet on a name, and remove
// what they placed once done with it, nothing else (the container's TTL
// sweep deletes the rest). The result, named by the
// container, must be a regular file in the output directory, opened
// without following links (else a *pfc.ResponseError), so nothing the
// container answers makes the client read outside it. The caller's own
// source and destination paths may be links.
//
// # Errors
//
// The container ties each error status to a log message id. Every such
// answer (its body's code is the id, or its message quotes it) becomes an
// *Error carrying the call (Endpoint), the id (MessageID), the message, the
// request id and whether a retry can help (Retryable), and matching the
// row's sentinel; the *pfc.APIError of the answer stays in the chain, with
// pfc.ErrBadRequest or pfc.ErrServer. A 2xx answer whose body is not the
// documented JSON, or a download that is not a JPEG or PNG file, is a
// *pfc.ResponseError; nothing is written then. Other error answers (a
// proxy's 502, a 413, a proxy's 401) are *pfc.APIError values. The retry
// column is what the client does: "no" rows are returned at once, "yes"
// rows after the client's retries ran out:
//
//	id                               status  sentinel                   retry
//	noContentTypeRequestMessage      400     ErrUnsupportedContentType  no
//	noIdMessage                      400     ErrMissingImageKey         no
//	invalidIdMessage                 400     ErrInvalidImageKey         no
//	unknownImageIdMessage            400     ErrUnknownImageKey         no
//	unknownPresetMessage             400     ErrUnknownPreset           no
//	unknownOutputTypeMessage         400     ErrUnknownOutputType       no
//	bodyRequestMessage               503     ErrBodyNotRead             yes
//	temporaryFileCreationMessage     503     ErrTemporaryFile           yes
//	temporaryFileWritingMessage      503     ErrTemporaryFile           yes
//	temporaryOutputFileMessage       503     ErrOutputFile              yes
//	temporaryCloseOutputFileMessage  503     ErrOutputFile              yes
//	processingPFCErrorMessage        503     ErrProcessing              no
//
// The 400 rows describe the request itself, so it would fail the same way
// (an unknown image key may have been swept: upload again). The other 503s
// come from memory or disk pressure, which passes. processingPFCErrorMessage
// means the engine failed on these bytes, so it is not retried although a
// 503, while any other 503 (a proxy's while the container restarts) is.
//
// Where the API documentation is silent, the package follows the mock:
//   - error body: the shared JSON {"status", "code", "message",
//     "parameter"} whose code is the message id; a message quoting the id
//     is recognised too, and any other body is kept in pfc.APIError;
//   - unknown output type: 400 unknownOutputTypeMessage;
//   - sizes: the hosted API's 32..10000; scale 1..62500, as in hosted;
//   - the imageKey of PUT /pfc: [A-Za-z0-9._-]{1,128}, no leading '.';
//   - request authentication: none (see Authentication);
//   - job states, events: none; GET /pfc/{imageKey} is synchronous;
//   - autocrop's further parameters: not sent (Autocrop alone; the mock
//     crops with its engine's defaults);
//   - maximum upload size and rate limits: none enforced by the client
//     (the mock refuses uploads above 50 MB with 413, an *pfc.APIError);
//   - /version: typed SDK version and features, whatever the document's
//     key names ("version", "sdkVersion", "build"), the rest in Raw;
//   - versioning of the HTTP interface: none assumed, no version prefix.
//
// # Scenes
//
// The container does not publish its scene list; SceneUnknown (-1): none
// detected. The mock's: 0 portrait, 1 group, 2 landscape, 3 nature, 4
// night, 5 product, 6 sunset, 7 high key.
package pfccontainer
