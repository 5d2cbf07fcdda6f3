// Package pfccontainer is the client of the locally deployed correction
// container: upload an image (PUT /pfc), correct it (GET
// /pfc/{imageKey}) into a URL of the corrected file and a detected scene,
// read the engine version (GET /version), and direct file mode with
// mounted /input and /output directories. It reads like a small sibling of
// package hosted: options with chainable setters, local validation that
// names every bad field at once, a Plan of what the container will do,
// typed records and typed errors.
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
// Rebase when the client reaches the container by a different address than
// PFC_SITE_URL names; leave it off when PFC_SITE_URL is set to an address
// the client can reach (e.g. a public gateway that serves /output from
// elsewhere). In direct file mode the corrected file is read from the
// mounted output directory under the URL's last path segment, which must
// be a plain file name.
//
// # Errors
//
// The container ties each error status to a log message id. Every such
// answer becomes an *Error carrying the id, the message and whether a
// retry can help (IsRetryable), and matching a sentinel per row (ErrBadRequest
// or ErrServer come with it through the cause):
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
// the same bytes fail again. Validation the client can do before sending
// (content type, key sanity, parameter ranges) is done locally and
// reported as *ValidationError instead.
//
// Where the container's documentation says "not shown", the package
// follows the mock's documented choices: the error body is the shared
// JSON {"status", "code", "message", "parameter"} whose code is the message
// id; an unknown output type is 400; the size parameters take the hosted
// API's range 32..10000.
//
// # Scenes
//
// The container does not publish its scene list; SceneUnknown (-1) means
// none was detected. The mock reports: 0 portrait, 1 group, 2 landscape,
// 3 nature, 4 night, 5 product, 6 sunset, 7 high key.
package pfccontainer
