// Package bgsvc is the core of the background-removal container mock:
// licence activation, jobs and their workers, the result files, all
// on an injectable clock. Its methods take and return plain values and
// *httpx.Error, so the HTTP layer (Handler) only translates requests into
// calls (and writes a raw final HTTP 102 for a download that is still
// processing).
//
// # HTTP
//
// Handler routes on the escaped path, so a licence key holding an escaped
// "/" stays one segment of /Authorize/{license_key}. Paths are
// case-sensitive; an unknown path is 404 not_found (its message names the
// method and the routes, never the path, so /authorize/{key} does not echo
// the key), a wrong method 405 with Allow. Every answer carries
// X-Request-Id; requests are logged at debug level through a logger that
// redacts the valid licence key (in any spelling) and whatever follows
// /Authorize/ (in any case: /authorize/ too) to the end of the path, so no
// key, right or wrong, reaches the logs. A download of a queued or processing
// job is answered with httpx.WriteFinalStatus (a raw "HTTP/1.1 102 Processing"
// with Connection: close, no body); where the connection cannot be
// hijacked (HTTP/2, a recorder) it is a 503 unavailable with Retry-After: 1
// instead. A completed download is 200 image/png with Content-Length and
// Last-Modified.
//
// # Choices where the API documentation says "not shown"
//
// Licensing. Config.LicenseKey is the one valid key. GET /Authorize with it
// activates the instance for its lifetime (until Close) and answers 200
// {status: "Licensed", message, "licensed org", "expiration date": "YYYY-MM"}.
// Any other key answers 200 with status "Unlicensed" and empty organisation
// and expiration date (the API documentation lists only 200, 400 and 500 for
// /Authorize); it does not revoke an earlier activation. GET /Status answers
// the same object with the ISO 8601 (RFC 3339, UTC) expiry and model_version;
// before activation, status "Unlicensed". After Config.LicenseExpiry (on the
// clock) the instance counts as not activated again.
//
// Not activated. Until the instance is activated, every image endpoint
// (SubmitImage, CheckImage, DownloadImage, RemoveImage) answers 403 with
// code "not_activated", before anything else is checked and before a body
// is read.
//
// Defaults. mode defaults to "general"; preprocessing and postprocessing
// default to false when absent. A value given is "true" or "false" (any
// case); anything else, an empty value (?preprocessing=) included, and a
// mode other than "portrait" or "general", is 400 invalid_parameter naming
// the parameter.
//
// preprocessing_config. An empty string means defaults. Otherwise it must be
// a JSON object (else 400 invalid_parameter, parameter
// preprocessing_config); unknown keys are ignored. The keys understood:
//
//   - "denoise" (bool, default true): a 3×3 median on the analysis image
//     before classification (the engine's Options.Preprocess).
//   - "detect_faces" (bool, default true): in portrait mode, seed the
//     subject from detected faces; false uses the border model only.
//
// The configuration is validated on every request but applies only when
// preprocessing is enabled.
//
// Form. SubmitImage's body is streamed: the file part goes straight to
// storage, the mode and preprocessing_config fields are read bounded, other
// parts are ignored. A body that is not multipart/form-data, or has no
// part named file, is 422 (parameter file); a part given twice is 400
// invalid_parameter; a malformed body 400 invalid_body.
//
// Files. The file part is bounded by Config.MaxFileBytes (413
// payload_too_large). A file that is not a JPEG or PNG the engine can read
// (by its header), or that breaks Config.Limits or would hold more memory
// than the whole Config.MemoryBudget, is 404 with code
// "invalid_file" (the documented "File invalid"); a readable header over a
// damaged body makes the job fail later. No file part is 422
// "unprocessable", parameter file.
//
// Order of checks on SubmitImage: activation (403), the query (400
// unknown_parameter for a name other than preprocessing and
// postprocessing, 400 invalid_parameter for a repeated one), file present
// (422), mode, preprocessing, postprocessing, preprocessing_config (400),
// file readable (404). On the other image endpoints: the query (none
// allowed), activation (403), process id format (400: a canonical UUID,
// any case; also a missing id), then existence (404; ids are compared
// exactly as issued, lower case).
//
// Jobs. A submitted job is queued in the shared job queue (package
// jobqueue): at most Config.Workers engines run at once, within
// Config.MemoryBudget (each job costs the memory its decoding and
// background removal hold, see checkImage), in submission
// order. States: queued → processing (a worker took it) → completed |
// failed. Config.ProcessingDelay keeps a job processing that long on the
// clock after its engine returned, simulating processing time without
// holding a worker (as the hosted mock does) but holding the job's place in
// the memory budget, as a slower engine would: with a budget of one image,
// one image is processed at a time. The submit answer always says
// "processing" (as documented). processing_time is the seconds from the start
// of processing to completion on the clock. Jobs are kept until removed
// (the API documentation shows no retention). Removing a queued job takes it out of the
// queue; removing a processing one cancels its engine or its delay.
// previous_status of a removal is the state the job had, among the
// documented values only (processing, completed, failed): a job still
// queued reports "processing", as /SubmitImage did.
//
// Files deleted. A job owns its input file until removed, and its result
// once computed: files_deleted is 2 for a completed job and for one removed
// while it waits out its ProcessingDelay with a result (still "processing"),
// and 1 otherwise.
//
// Results. The result is a PNG of the subject on transparency at the
// input's upright size (EXIF orientation applied), scaled down when its long
// side exceeds Config.MaxOutputLongSide (default 5000 px, the hosted API's
// background-removal limit, about 14 MP). A result with no transparent
// pixel at all is written as an RGB PNG (the engine's encoder).
package bgsvc
