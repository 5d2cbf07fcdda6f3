// Package pfccontainer is the client of the locally deployed correction
// container: upload an image (PUT /pfc), correct it (GET
// /pfc/{imageKey}) into a URL of the corrected file and a detected scene,
// download the result, read the engine version (GET /version), and direct
// file mode with mounted /input and /output directories. It reads like a
// small sibling of package hosted: the same options, options with
// chainable setters, local validation that names every bad field at once,
// a Plan of what the container will do, typed records and typed errors.
//
//	c, err := pfccontainer.NewClient(pfccontainer.WithBaseURL("http://localhost:80"))
//	corr, err := c.CorrectFile(ctx, "in.jpg", "out.jpg", pfccontainer.NewCorrection().ResizeLong(2000))
//
// Step by step: Upload or UploadFile return an imageKey, Correct returns a
// *Correction, Download or DownloadFile (atomic) fetch the file. Version
// and Health read GET /version. Client.Direct works on the mounted
// directories instead of HTTP transfers (see Direct). Tests use
// mockserver.StartPFCContainer, an in-process mock with a ready client.
//
// # Authentication
//
// The container documents none: it is licensed by files mounted in
// /sdk_license, and NewClient takes no key and sends no credential.
// Without a valid licence the container answers normally but the
// "corrected" file is the original. Keep the port on a private network,
// or put an authenticating proxy in front (a WithHTTPClient transport can
// add its header, for the proxy's host only). The client itself sends
// nothing to another host but the download of corrected_url, which carries
// no credential and no header of the caller.
//
// # Transport
//
// The options (WithBaseURL, WithHTTPClient, WithLogger, WithRetries,
// WithMaxRetryAfter, WithUserAgent, WithResponseHeaderTimeout,
// WithMaxDownloadSize) are the hosted client's. There is no WithPolling: the container has no jobs,
// GET /pfc/{imageKey} answers once the image is corrected. That answer can
// take long for large images, so the response header timeout (default 5
// minutes per attempt) must cover the slowest correction; a context
// deadline bounds the whole call, retries included. Connection errors,
// 408, 429 and 5xx other than 501 are retried with jittered exponential
// backoff (Retry-After honoured, capped), except the rows below that no
// retry can help. A JSON answer (PUT /pfc, GET /pfc/{imageKey}, GET
// /version) cut off mid-body is retried the same way; a download cut off
// before its Content-Length is not (bytes reached the writer): it fails
// with an error matching ErrTruncatedResponse, and DownloadFile and
// CorrectFile leave no file.
//
// Retried uploads: PUT /pfc is not idempotent (each accepted upload gets a
// new imageKey), yet it is retried: an attempt that reached the container
// before failing leaves at most an orphan file that no key returned to the
// caller names, which the container's TTL sweep deletes
// (PFC_IMG_CACHE_TTL, default 60 minutes). That is cheaper than making
// the caller upload again. GET /pfc/{imageKey} is retried too: a repeated
// correction writes another output file, swept the same way.
//
// # Replicas
//
// WithReplicas (several base URLs) or WithReplicaHost (a name resolving to
// several addresses, re-resolved every 30 s) spread a client over replicas.
// An upload goes to the one with the fewest calls in flight for its weight
// (WithReplicaWeight), the correction of its imageKey to the same one (a
// client that did not upload it asks each), and corrected URLs are rebased
// on it. A replica refusing connections or answering 5xx three calls
// running is set aside until GET /version answers (backoff 1 s to 1 min).
// A call moves only when it provably never reached a replica. CorrectFile
// (and CorrectDir) whose replica is then down (GET /version never reaches
// it) is done again on another (Correction.LostReplicas).
//
// # Options
//
// CorrectionOptions carries every query parameter of GET /pfc/{imageKey}
// (preset, outputType, outputQuality, outputColorSpace, width, height,
// long, short, scale, autocrop, skip, skip-exif-software,
// preserveInputFileName, enableComposite). Validate reports every invalid
// field in one *ValidationError (errors.Is ErrInvalidParameter). Plan says
// which resize parameter applies, by the container's priority width >
// height > long > short > scale, and which parameters it will ignore (skip
// under AI preset selection, outputQuality for PNG output); Strict turns
// those into validation errors.
//
// # Download URLs
//
// corrected_url is built on the container's PFC_SITE_URL, which defaults
// to http://localhost: right inside the container's own network, wrong
// from another host or from the Docker host when the port is published
// elsewhere. Rebasing moves the URL onto the client's base URL (keeping
// any path prefix of it, e.g. a reverse proxy's, and the /output/... tail).
// Client.RebaseCorrectedURLs returns a client that does so in Correct
// (Correction.ReportedURL keeps the container's answer). Rebase when the
// client reaches the container by a different address than PFC_SITE_URL
// names; leave it off when PFC_SITE_URL is set to an address the client
// can reach (e.g. a public gateway that serves /output from elsewhere).
// Downloads ask for the identity encoding and carry no credential. In
// direct file mode the corrected file is read from the mounted output
// directory under the URL's last path segment, which must be a plain file
// name.
//
// # Direct file mode
//
// With /input and /output mounted from directories this program can
// reach, Direct.Put copies a file in atomically (a hidden temporary name
// in the input directory, renamed once complete, so the container never
// reads half a file; the container refuses keys starting with a dot and
// its sweep leaves them alone), Direct.Correct calls GET /pfc/{file name}
// with preserveInputFileName=true unless the options say otherwise, and
// returns the path of the result in the output directory. PutFile,
// CorrectFile and the bulk runs name each file they place
// "pfc-<token>-<n>-<its name>" (token random per call or run, n per
// file), so callers sharing a container never meet on a name, and remove
// what they placed once done with it, nothing else; other files are left
// for the container's TTL sweep to delete. The result, named by the
// container, must be a regular file in the output directory: a symbolic
// link there (which could point anywhere on this host), a directory or a
// pipe is refused with a *ResponseError, and CorrectFile opens the result
// without following links, so nothing the container answers makes the
// client read outside the output directory. The caller's own source and
// destination paths may be links.
//
// # Errors
//
// The container ties each error status to a log message id. Every such
// answer (its body's code is the id, or its message quotes it) becomes an
// *Error carrying the call (Endpoint), the id, the message, the request id
// and whether a retry can help (IsRetryable), and matching a sentinel per
// row; the *APIError of the answer stays in the chain (errors.As), with
// ErrBadRequest or ErrServer. *Error has bgcontainer.Error's fields where
// they mean the same (Endpoint, StatusCode, Message, Parameter, RequestID,
// Err); its MessageID is what bgcontainer.Error calls Code, typed because
// this container's codes are a closed, documented list. A 2xx answer
// whose body is not the documented JSON, and a download that is not a
// JPEG or PNG file in the identity encoding, is a *ResponseError
// (ErrInvalidResponse), as in bgcontainer; nothing is written then.
// The retry column is what the client itself does: "no" rows are
// returned at once, "yes" rows after the client's retries ran out. Other
// error answers (a proxy's 502, a 413, an authenticating proxy's 401 or
// 403, which match ErrUnauthorized) are *APIError values. APIError,
// ValidationError and FieldError are this package's own types with the
// fields of hosted's; *Error, MessageID and the per-row sentinels are the
// container's extras (ResponseError and Endpoint are bgcontainer's too). Every error string starts with "pfc:" and has passed
// the client's redactor:
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
// Why: the 400 rows describe the request itself (a content type, a key, a
// preset, an output type), so the same request fails the same way; an
// unknown image key may also mean the image outlived PFC_IMG_CACHE_TTL and
// was swept: upload it again rather than retry. The upload and output-file
// 503s come from memory pressure or a full or unwritable disk; memory
// frees, and the container's sweep deletes old files every 10 minutes, so
// a later attempt can succeed (a permanently unwritable mount will keep
// failing: the retries are bounded). processingPFCErrorMessage means the
// engine failed on this image (corrupt data, a short side under 32 pixels):
// the same bytes fail again, so the client does not retry it although it
// is a 503 (the transport's Request.Permanent hook reads the answer's code
// or message), while any other 503, such as a proxy's while the container
// restarts, is retried and usually heals. Validation the client can do
// before sending (content type, key sanity, parameter ranges) is done
// locally and reported as *ValidationError instead.
//
// Where the container's documentation says "not shown", the package
// follows the mock's documented choices:
//   - error body: the shared JSON {"status", "code", "message",
//     "parameter"} whose code is the message id; a message quoting the id
//     is recognised too, and any other body is kept in APIError;
//   - unknown output type: 400 unknownOutputTypeMessage;
//   - size parameters: the hosted API's range 32..10000; scale 1..1000;
//   - request authentication: none (see Authentication);
//   - job states, events: none; GET /pfc/{imageKey} is synchronous;
//   - autocrop's further parameters: not sent (Autocrop alone; the mock
//     crops with its engine's defaults);
//   - maximum upload size and rate limits: none enforced by the client
//     (the mock refuses uploads above 50 MB with 413, an *APIError);
//   - /version: typed SDK version and features, whatever the document's
//     key names ("version", "sdkVersion", "build"), the rest in Raw;
//   - versioning of the HTTP interface: none assumed; the paths are used
//     as documented, without a version prefix.
//
// # Scenes
//
// The container does not publish its scene list; SceneUnknown (-1) means
// none was detected. The mock reports: 0 portrait, 1 group, 2 landscape,
// 3 nature, 4 night, 5 product, 6 sunset, 7 high key.
package pfccontainer
