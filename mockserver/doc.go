// Package mockserver runs stateful mocks of the three image-processing
// APIs, in process or as the standalone binary cmd/pfc-mockserver: the
// hosted API v2 (Hosted, StartHosted), the correction container
// (PFCContainer, StartPFCContainer) and the background-removal container
// (BGContainer, StartBGContainer). Each is a thin HTTP layer over a service
// with real state, and images are processed by the reference engine.
//
// # In-process use
//
//	srv := mockserver.StartHosted(t, nil) // httptest + cleanup + a ready client
//	job, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", hosted.NewCorrection())
//
// StartHosted(tb, opts, clientOpts...) takes a *HostedOptions (nil for
// the defaults) and options for the ready-made client, applied after the
// test server's own: the base URL, the httptest client, and fast polling
// (every 10 to 100 ms, since a mock job takes milliseconds). Shutdown is
// registered with tb.Cleanup: the httptest server closes first, then the
// mock, which removes its data directory.
//
// Without testing.TB, NewHosted returns an http.Handler to mount on any
// server (close the server first, then Hosted.Close).
//
// # Time
//
// Tests control time with a clock.Fake in HostedOptions.Clock. After a
// request, HostedTestServer.WaitIdle (or Hosted.WaitIdle) returns once
// nothing runs but timers, and HostedTestServer.Advance steps the fake
// clock through every due timer, waiting for the work each one starts:
// processing delays, retention, URL expiry and webhook retries happen at
// their simulated times, without sleeping.
//
// Webhook deliveries are stamped with the server's clock, so a
// webhook.Verifier checking against the real clock rejects those of a
// server whose fake clock is far from now. HostedTestServer.WebhookVerifier
// returns a verifier for the server's API keys on its clock, and
// HostedTestServer.WebhookClock the webhook.WithClock option for a
// verifier (or webhook.Middleware) of your own:
//
//	rc := httptest.NewTLSServer(webhook.Middleware(srv.WebhookVerifier())(handler))
//
// # Processors and the engine
//
// Images are corrected by the reference engine (Engine, through
// HostedEngineProcessor), or by HostedOptions.Processor when set, a
// HostedProcessor that gets a HostedJobRequest with every default and
// priority rule applied and returns a HostedJobResult (or a
// *HostedRejectError for a REJECTED job); videos pass through. Create one
// Engine with NewEngine to share it between several mocks (on the CPU), or
// let NewHosted create one with HostedOptions.BGEngine (the binary's
// -bg-engine, shared with the background-removal container) picking the
// background-removal engine: the GPU engine then removes backgrounds and
// composites the subject on the device (see "Background-removal
// container" below for the engines). The engine
// scales a background-removal result down to at most 5000 px on the long
// side and 14 megapixels (the seed's "about 14 megapixels"; a 4800×4800
// input gives 3741×3741).
//
// # Memory
//
// Correcting an image costs about 9 bytes a pixel (a 14000×14000 PNG
// costs ~1.7 GB). Jobs are admitted against a pixel budget of each
// backend (HostedOptions.PixelBudget, and the same field of the container
// mocks' options; the binary's -pixel-budget sets all three; default
// DefaultPixelBudget, 200 megapixels, which fits 2 GB): a job whose image
// would take the images being processed past it waits PENDING in the
// queue, in order, and an image larger than the whole budget is processed
// alone. A job counts the pixels of its image (twice over for a 16-bit PNG
// or a progressive JPEG, whose decoding holds about twice the memory),
// plus those of the resized image when it resizes (a small image upscaled
// to 14000×14000 costs what a large one does), plus those of its
// background image. Workers (default
// GOMAXPROCS; 4 in the correction container) bounds the jobs processed at
// once. (The engine's live heap is about 6 bytes a pixel; the rest of the
// 9 is the collector's headroom. A test checks that two queued 9 MP images
// under a 9.5 MP budget peak at about 52 MB of heap, within 9.5 MP × 9 B.)
//
// # Routes
//
//	GET    /v2/upload?fileType=image|video    → {"fileKey", "uploadUrl"}
//	GET    /v2/pfc?fileKey=...&...            → {"statusEndpoint": "<base>/v2/status/<jobID>"}
//	GET    /v2/status/{jobID}[?noRedirect=true]
//	GET    /v2/presets[?limit=20&offset=0]    (also /v2/presets/)
//	POST   /v2/presets/                       (also /v2/presets)
//	GET    /v2/presets/{presetId}
//	DELETE /v2/presets/{presetId}
//	PUT    /storage/upload/{fileKey}?expires=...&signature=...    (pre-signed, no key)
//	PUT    /storage/presets/{presetId}?expires=...&signature=...  (pre-signed, no key)
//	GET    /files/{jobID}/corrected.{jpg|png|mp4|mov}             (public, also HEAD and Range)
//
// The URLs handed out use the request's scheme and Host (or
// HostedOptions.BaseURL). Every response carries X-Request-Id.
//
// # Errors
//
// Every error answer, on every route of every mock backend, has one JSON
// shape (ErrorBody); the container seeds leave the error body open, so the
// three mocks share the hosted mock's:
//
//	{"status": 400, "code": "invalid_parameter", "message": "width: must be between 32 and 10000, got 5", "parameter": "width"}
//
// parameter is present when one parameter is to blame; when several are,
// it names the first in the order of the API's parameter table and message
// lists them all, separated by "; ". Codes: unauthorized (401),
// forbidden and url_expired (403, pre-signed URLs), missing_parameter,
// invalid_parameter, unknown_parameter and invalid_body (400), not_found
// (404), method_not_allowed (405, with Allow), conflict (409),
// payload_too_large (413), unprocessable (422), not_activated (403, a
// container without a licence), not_implemented (501, a backend the
// binary does not implement yet), unavailable (503, shutting down),
// internal_error (500), and rate_limited (429, only from fault injection).
//
// # Behaviour the API documentation leaves open, as this mock implements it
//
// Colour models, the same in all three mocks: the API documentation lists
// JPEG and PNG images in RGB or RGBA. Greyscale JPEGs and PNGs (with or
// without alpha), palette PNGs and 16-bit PNGs are accepted as a real
// service's decoder would take them, and converted on decode: grey to RGB,
// a palette to RGB or RGBA, 16 bits to 8; outputs are 8-bit RGB(A). CMYK
// JPEGs are rejected (hosted: REJECTED, code 1001; correction container:
// 503 processingPFCErrorMessage; background removal: 404 invalid_file). ICC profiles travel with the metadata and are
// not applied, except by the correction container's outputColorSpace (see
// below).
//
// Authentication: every /v2 route requires X-API-KEY, checked before
// routing, so an unknown /v2 path without a key is 401. A missing or wrong
// key is 401 (code unauthorized). Each key is its own account: uploads,
// jobs and presets of one key are 404 for another.
//
// Strict parameters: every endpoint rejects parameters it does not define
// (400 unknown_parameter) and repeated parameters. Booleans are exactly
// "true" or "false"; integers are decimal. On /pfc the names, enums,
// ranges and priority rules are those of the parameter table the client
// uses too (internal/pfcparams, checked against the API documentation):
// width, height, long and short 32..10000 (0 is out of range when given),
// scale 1..1000 (a percentage; the API documents no bound, the clients
// share this one), outputQuality 40..100, the
// auto-crop values plain decimal numbers, bgColor "#rrggbb" or a CSS
// colour name (or "transparent"), bgShadow soft, hard or floating,
// webhookUrl an absolute https URL (plain http is 400 before anything
// else is looked at). What the service ignores is accepted and ignored,
// never a 400, as hosted.Plan reports it: every size parameter but the
// first of width > height > long > short > scale, the background
// parameters of lower priority than the effective mode (generative >
// image > colour > transparent), every bg* parameter without
// removeBackground=true (bgColor too, even "transparent"; an ignored
// bgFileKey is not looked up), bgShadow outside the image and colour
// modes, and autocropDetectOnly and the auto-crop values without
// autocrop=true. Ignored values must still be well-formed.
//
// Uploads: the upload is an HTTP PUT of the raw bytes to uploadUrl, which
// is valid for 1 hour (HostedOptions.UploadURLTTL) and signed with
// HMAC-SHA256 over the method, the path (which holds the fileKey) and the
// expiry. A tampered URL (also one whose query no longer parses) is 403
// forbidden, an expired one 403 url_expired, and neither stores anything;
// no API key is needed or checked. As on object stores, the expiry is
// checked when the request arrives: an upload that started while the URL
// was valid completes however long its body takes. Bodies are streamed to a temporary file
// and renamed into place only when complete, so multi-GB videos never sit
// in memory; a body that breaks off is 400 invalid_body and stores
// nothing. Limits: videos at most 5 GB (5,000,000,000 bytes); images below
// 50 MB (at most 49,999,999 bytes: the API documents no file limit for
// images, so the mock takes the largest it states for an image operation,
// AI upscaling's, which also bounds the engine's memory); preset files at
// most 1 MiB. A larger Content-Length is 413 before reading, a longer
// chunked body is 413 as soon as it passes the limit. Any Content-Type is
// accepted; a stored file is answered 200 with an empty body. A second PUT
// to the same URL replaces the file for jobs started afterwards. Uploaded
// files (also backgrounds) stay usable for 7 days, the seed's background
// cache.
//
// /pfc: an unknown fileKey or bgFileKey (or one whose upload has not
// arrived yet) is 404 with parameter fileKey or bgFileKey. The answer is
// {"statusEndpoint": ...} only.
//
// Jobs: PENDING when queued, PROCESSING while a worker runs it (at most
// HostedOptions.Workers at once, within HostedOptions.PixelBudget), then
// COMPLETED, FAILED or REJECTED. The
// mock checks, before the processor runs: the /pfc fileType matches the
// upload's fileType and the content (JPEG/PNG for images, MP4/MOV by
// signature for videos), the JPEG is not CMYK, the pixel size is within
// the correction limits (both sides at least 33, long side at most
// 100,000, aspect below 21:1, below 200 megapixels) for a job that
// corrects, retouches (removeGlares) or auto-crops (a preset=none job
// without autocrop and removeGlares, such as a resize, is held only to
// below 200 megapixels; AI upscaling's limits apply to its resize: below
// 64 px on the short side the upscale is classic, the output long side is
// capped at 20,000 px, 8,192 with resize=smallDetails), background removal
// gets an input below 30 MB, the preset is a built-in group or an
// uploaded preset of the account, bgFileKey is a JPEG or PNG. A failed
// check is REJECTED (with originalDimensions when known); a file that
// starts like a JPEG/PNG but whose header does not parse is FAILED, as is
// a processor error (or panic). A JPEG or PNG variant the decoder cannot
// read is REJECTED. ProcessingDelay keeps COMPLETED and FAILED jobs
// PROCESSING that long on the clock; timeTaken is the clock time from
// PROCESSING to the end.
//
// Job codes (the record's code; 0 unless FAILED or REJECTED): 1000
// rejected by the processor, 1001 unsupported format (or CMYK), 1002
// fileType mismatch, 1003 pixel size outside the limits, 1004 file too
// large for the operation, 1005 unknown preset (or one without a file
// yet), 1006 background image not JPEG/PNG, 2001 processing failed
// (corrupt file), 2003 server shut
// down during the job.
//
// Job records have the fields the API documents (the mock's own type,
// checked against a record written out from the documentation; the
// client's hosted.Job decodes them). PENDING and PROCESSING
// records hold _id, status, statusText (""), code (0), createdAt and
// updatedAt. Terminal records add timeTaken, usage and
// originalDimensions (when known); COMPLETED ones add correctedFile,
// aiserver (true), cropRect (autocropDetectOnly with a face found) and
// detectionData (includeDetectionData=true, images only: facesCount,
// faces, scene, noise, redEye, warnings, message "", status "OK").
// statusText explains FAILED and REJECTED jobs, and names the source job
// of a cache hit. usage.size is S (up to 2 megapixels), M (up to 8), L
// (up to 24) or XL, and "video" for videos; each counter is 0 or 1 for
// the job: imageCorrectionCount when a correction was applied,
// imageResizeCount for an AI upscale, classicResizeCount for any other
// resize, glaresDetectorCount and removeGlaresTotalCount with
// removeGlares=true, removeGlaresCount when glare was also found (so the
// total is never below it), removeBackgroundCount, autoCropCount when a
// crop was found, videoCorrectionCount for a video.
//
// Status: GET /status/{jobID} answers 200 with the record while the job
// runs and when it is FAILED or REJECTED; 302 with Location =
// correctedFile (and the record as body) when COMPLETED, unless
// noRedirect=true (200). An unknown id is 404. The terminal record is
// serialised once: /status and the webhook send the same bytes.
//
// Retention: job records and corrected files are deleted
// HostedOptions.Retention (24 h to 7 days, default 24 h) after the job
// ends; then /status and the file URL answer 404. Corrected files need no
// credentials.
//
// Cache: with cache=true (the default), a job whose file content (SHA-256)
// and effective options equal those of an earlier COMPLETED job of the
// same account completes at once with that result: a new job id and file
// URL, statusText "cache hit: result of job <id>", the earlier job's
// usage, originalDimensions, cropRect and detection data, timeTaken 0, and
// the webhook is sent. The options compared are all that change the output
// (cache, includeDetectionData and webhookUrl do not; a custom preset
// counts by its file content), and the fileType the upload was requested
// with, so a hit never skips a check the job would fail. A cached result
// lives as long as the newest job that used it.
//
// Video: MP4 and MOV (recognised by signature, at most 5 GB) are passed
// through unchanged as the corrected file (corrected.mp4 or
// corrected.mov); image options are ignored; usage counts
// videoCorrectionCount; originalDimensions comes from the first video
// track header when present.
//
// Presets: POST /v2/presets/ takes {"name": string, "description":
// string}; name is required, must be unique in the account (409
// otherwise), must not be a built-in group name (case-insensitively) and
// is at most 200 characters; description is optional (at most 2000);
// unknown fields are 400. The answer (200) is the preset record with
// uploadUrl, a pre-signed PUT URL (1 hour, no API key) for the file (the
// extension .pcp/.preset is the client's concern; the file must be
// non-empty and at most 1 MiB). A preset record is {"presetId", "name",
// "description", "status": "awaiting_upload"|"ready", "size",
// "createdAt", "updatedAt"}. GET /v2/presets answers {"presets": [...],
// "total": N, "limit": L, "offset": O} in creation order, limit 1..100
// (default 20), offset >= 0 (default 0); it lists the account's custom
// presets, uploaded or awaiting their file, not the built-in groups. GET
// /v2/presets/{presetId} answers the record, DELETE answers
// {"presetId": ..., "deleted": true}; both 404 for an unknown id. /pfc
// uses a preset by exact name once its file is uploaded; the built-in
// groups are Universal (also when preset is omitted), Pro, School and
// Sports, Attractions and Cruise Lines, and none. A job started with a
// name that is neither is REJECTED (code 1005). Jobs keep the preset file
// they started with.
//
// Webhooks: when a job with webhookUrl ends COMPLETED or FAILED (also on a
// cache hit; never for REJECTED), the mock POSTs the exact /status record
// bytes with webhook-id evt_<jobID>, webhook-timestamp (the clock, unix
// seconds, re-signed per attempt), webhook-signature (webhook.Sign keyed
// with the API key used on /pfc), Content-Type application/json and
// User-Agent service-Webhook/1.0. Redirects are not followed. A non-2xx
// answer, a transport error or an attempt longer than 30 s
// (HostedOptions.WebhookTimeout) is retried 8 times, at 1, 3, 6, 11, 18,
// 27, 37 and 48 minutes after the first attempt (gaps of 1, 2, 3, 5, 7, 9,
// 10 and 11 minutes), then abandoned; the job and /status are unaffected.
// Only https targets are accepted (by /pfc validation); trust comes from
// HostedOptions.WebhookClient or WebhookCAs. Logs name a target without
// its user info, query or fragment, which may hold the receiver's secret.
//
// Shutdown: Hosted.Close interrupts the bodies of pre-signed PUTs still
// being received (they are answered 503 unavailable and store nothing)
// and waits for them, so nothing writes into the data directory once it
// is removed; every request arriving once Close has begun (the API, the
// pre-signed PUTs, the result files) is answered 503 unavailable too. A
// 500 internal_error, and the statusText of a job that failed on the
// mock's own disk, never carry server paths (they go to the log).
//
// Time: the processing delay, retention, URL expiry and webhook schedule
// all run on HostedOptions.Clock. So does the webhook attempt timeout,
// except that a clock.Scaled (-time-scale) does not scale it: it bounds a
// real network exchange, which no time scale speeds up (at 0.001 it would
// be 30 ms, and a receiver doing any work would be sent every event again
// and again). A pre-signed URL's expires is a reading of the clock's Now
// in unix seconds (the URL stays valid through that second); on a
// clock.Scaled, whose Now is the wall clock, it is the wall time at which
// the scaled TTL ends, which is when the unused upload ticket is
// forgotten.
//
// Not modelled: rate limits (none), API versions other than /v2.
//
// # Fault injection
//
// Each backend takes a *FaultSpec (HostedOptions.Faults,
// PFCContainerOptions.Faults, BGContainerOptions.Faults; the binary's
// -faults flag) that makes it fail some requests on purpose, reproducibly,
// to test a client's retries and cleanup:
//
//	spec, err := mockserver.ParseFaults("rate=0.2,kinds=503|429|reset|latency,seed=7")
//	srv := mockserver.StartHosted(t, &mockserver.HostedOptions{Faults: spec})
//
// The spec is sections separated by ";", each a list of name=value
// parameters separated by ",", optionally prefixed by a backend ("hosted:",
// "container:", "bg:") to apply to that backend only; a section without a
// prefix is the default of every backend, and a backend's section inherits
// the parameters it does not set from it:
//
//	rate=F          probability that a request is faulted, 0 to 1 (required)
//	kinds=K|K...    500, 503, 429, reset, reset-body, reset-after, truncate,
//	                latency, 102 (default: all)
//	routes=R|R...   the routes faulted (default: all; names below)
//	seed=N          unsigned integer (default 1)
//	latency=D       the delay of kind latency, 1ms to 10s (default 10ms)
//	retry-after=S   the Retry-After of kind 429, seconds 0 to 3600 (default 1)
//
// Unknown or repeated names, kinds, routes and sections are errors
// (matching ErrInvalidFaultSpec, naming the section and parameter), as are
// kind 102 and a route that a backend's own section lists but the backend
// lacks. What a backend's section inherits from the default section is
// filtered instead: a kind or route it lacks is left out for it.
//
// Kinds. Before the handler runs (no side effect): 500 and 503 (the JSON
// error body, codes internal_error and unavailable), 429 (code
// rate_limited, with Retry-After), reset (the connection is reset, with a
// TCP RST, before the request body is read), reset-body (the body is read
// to its end and dropped, then the connection is reset), 102 (a final
// "HTTP/1.1 102 Processing" and the connection closed; only on bg's
// download route, never drawn elsewhere). After the handler ran (the
// request had its full side effect; only the answer is lost): reset-after
// (the answer is dropped and the connection reset) and truncate (the
// answer is sent with its full Content-Length but half its body, then the
// connection is closed; an answer without a body is reset instead, as is
// the final 102 a bg download answers on its hijacked connection).
// latency delays the request (real time, not the mock's clock) and then
// serves it. Injected error answers carry an X-Request-Id like the
// others; the backend's log (when it has a Logger) gets an Info record
// per fault, naming the backend, route, sequence number and kind, never
// the path. The correction container, which has a JSON log instead
// (PFCContainerOptions.LogWriter), writes one line per fault there, at
// warning with message id faultInjectedMessage and the same attributes.
//
// Reproducibility: whether the n-th request of a route is faulted, and
// how, is a function of the seed, the backend, the route and n only, where
// n counts that route's requests on that backend instance in order of
// arrival. A client sending one request at a time meets the same faults
// on every run. Under concurrency the arrival order varies, so which
// request gets the n-th decision varies, but the decisions do not: the
// same number of requests per route meets the same faults, kind for kind.
//
// FaultSpec.Observe, when set, is called after every request with a
// FaultEvent (route, sequence number, kind, the status the handler
// answered), for tests that count what happened.
//
// What a request failed after the handler ran leaves behind, route by
// route (a fault before the handler leaves nothing; read-only routes
// leave nothing either way):
//
//	hosted  upload   GET  /v2/upload        a new fileKey and upload URL, never used; nothing to clean up
//	hosted  storage  PUT  /storage/...      the file stored; the client's retry stores the same bytes again
//	hosted  pfc      GET  /v2/pfc           a job that runs to its end (and sends its webhook) while the
//	                                        client, not knowing its id, retries and starts a second one:
//	                                        the duplicate the hosted client documents (harmless with
//	                                        cache=true once the first has completed)
//	hosted  presets  POST /v2/presets/      the preset created; a retry is 409 conflict (the name is taken)
//	                 DELETE /v2/presets/{id} the preset deleted; a retry is 404
//	hosted  status, files, GET presets      read-only
//	container upload PUT  /pfc              the image stored under a key the client never learns; it
//	                                        expires with the image TTL
//	container correct GET /pfc/{imageKey}   the corrected file written to output/ (a retry corrects
//	                                        again and writes it again)
//	container output, version               read-only
//	bg      authorize GET /Authorize/{key}  the container activated (a retry is harmless)
//	bg      submit   POST /SubmitImage      a job the client cannot know, left until removed (the
//	                                        client never resends a SubmitImage that may have arrived)
//	bg      remove   DELETE /RemoveImage/{id} the job removed; a retry is 404
//	bg      status, check, download         read-only
//
// Routes named "other" hold every other path (unknown routes, 404s).
//
// # Correction container (PFCContainer)
//
// The mock of the locally deployed correction container (seed 001):
//
//	srv := mockserver.StartPFCContainer(t, nil) // httptest + cleanup + a ready pfccontainer client
//	corr, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", nil)
//
// Routes: PUT /pfc (Content-Type image/jpeg or image/png) → {"imageKey"};
// GET /pfc/{imageKey}?preset=...&outputType=...&... → {"corrected_url",
// "scene"}; GET /output/{name} (the corrected files, also HEAD and Range);
// GET /version (also the health check). Every answer carries X-Request-Id.
//
// Mounts: PFCContainerOptions.Root holds sdk_license, presets, addons,
// input, output and scene (a private temporary tree when empty, removed by
// Close). A tree the mock creates gets a valid mock licence unless
// Unlicensed is set; without a valid licence every "corrected" file is a
// byte copy of its input and the log says why (licenseMessage). Presets
// and exported AI preset groups in presets/ are usable by name.
//
// Settings: every PFC_* variable is a field of PFCContainerOptions (the
// binary reads them from its environment with PFCContainerOptionsFromEnv)
// with the container's default and effect: SiteURL (the base of
// corrected_url; StartPFCContainer defaults it to the test server's URL,
// the container's own default being http://localhost), LogLevel,
// ImageTTL (swept every 10 minutes on Clock: PFCContainerTestServer.Advance
// runs the sweeps that fall due), SkipMode, SkipEXIFSoftware,
// PreserveInputFileName, EnableComposite; AVX, UseFastFAE and UseAIServer
// are reported by /version only.
//
// outputColorSpace: original (the default) keeps pixels and ICC profile;
// srgb converts from the source's RGB matrix/TRC profile (untagged means
// sRGB) to sRGB and embeds an sRGB profile; the name of an ICC file in
// PresetsDir converts to it and embeds it. LUT-based profiles, at either
// end, leave the colours as they are (logged as correctionSkippedMessage).
//
// Direct file mode: a file placed in InputDir (atomically: a hidden
// temporary name, then a rename) is corrected by GET /pfc/{file name};
// with preserveInputFileName the result is OutputDir/{same name}.
//
// Logs: one JSON object per line on LogWriter (the binary: stderr) with
// "level" (debug, info, warning, error), "msg" (the container's message
// id: noContentTypeRequestMessage, invalidIdMessage,
// processingPFCErrorMessage, cleanUpFileMessage, ...) and "status" (the
// HTTP status tied to the id), filtered by LogLevel. Error answers use the
// shared error body with the message id as code (an unknown output type
// is 400 unknownOutputTypeMessage); malformed, unknown or repeated query
// parameters (any on GET /version) are 400 invalid_parameter or
// unknown_parameter, logged as invalidParameterMessage. See package pfccontainer for the client side
// and the retry decision of each row.
//
// # Background-removal container (BGContainer)
//
// BGContainer mocks the locally deployed background-removal container
// (seed 002); the reference engine's CPU background removal does the work,
// or its GPU engine (below). In tests:
//
//	srv := mockserver.StartBGContainer(t, nil) // httptest + cleanup + a ready bgcontainer client
//	res, err := srv.Client.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil)
//
// StartBGContainer(tb, opts, clientOpts...) takes a *BGContainerOptions
// and options for the client, which holds the valid licence key
// (BGContainerTestServer.LicenseKey, DefaultBGLicenseKey unless
// BGContainerOptions.LicenseKey is set) and polls every 10 to 100 ms. The
// standalone binary serves it on -bg-addr with -license-key,
// -bg-processing-delay and -bg-engine.
//
// Engines: BGContainerOptions.Engine (the binary's -bg-engine) picks
// BGEngineCPU, the pure-Go reference (the option's default), BGEngineCUDA,
// the GPU engine, or BGEngineAuto, the GPU where it can run and the CPU
// otherwise (the binary's default in a cuda build). The GPU engine exists
// only in a build with the tag cuda (`go build -tags cuda`, Linux; no cgo
// and no CUDA toolkit needed: the driver, libcuda.so.1, is loaded at run
// time and its kernels are embedded PTX), and runs where the driver loads
// and reports a device; its mattes match the CPU engine's within 2/255 of
// alpha per pixel (package internal/engine/matting/gpu documents which
// stages run on the GPU). A build without the tag has only the CPU engine
// (CUDAEngineCompiled is false): asking for cuda there, or where no driver
// or device is found, fails NewBGContainer with an *EngineUnavailableError
// (ErrEngineUnavailable) and the binary at startup, while auto falls back
// to the CPU with one log line saying why. Which engine runs is logged once
// ("background-removal engine", engine cpu or cuda, with the GPU's name)
// and returned by BGContainer.Engine; /Status's model_version stays the
// seed's release label whatever the engine. HostedOptions.BGEngine makes
// the same choice for the hosted mock's background option (returned by
// Hosted.BGEngine); the binary's -bg-engine sets both. All the mocks of a
// process that run the GPU engine share one (its device context, worker
// and memory pools), opened by the first and closed with the last.
//
// Routes (all JSON but the PNG download; no query parameters except
// SubmitImage's):
//
//	GET    /Authorize/{license_key}      → {"status": "Licensed"|"Unlicensed", "message", "licensed org", "expiration date": "YYYY-MM"}
//	GET    /Status                       → the same with an RFC 3339 "expiration date" and "model_version"
//	POST   /SubmitImage[?preprocessing=true|false&postprocessing=true|false]  multipart: file, mode, preprocessing_config
//	GET    /CheckImage/{process_id}      → {"status", "original_name", "mode", "processing_time" | "error"}
//	GET    /DownloadImage/{process_id}   → a raw final "HTTP/1.1 102 Processing" while queued or processing; 200 image/png
//	DELETE /RemoveImage/{process_id}     → {"status": "deleted", "process_id", "files_deleted", "previous_status"}
//
// Licensing: the container starts unactivated (unless
// BGContainerOptions.Activated); until /Authorize gets the valid key,
// every image endpoint answers 403 not_activated, before reading a body. A
// wrong key answers 200 Unlicensed and leaves an earlier activation in
// place; activation lasts until Close (or the licence's expiry on the
// clock). Licence keys, also wrong ones, never appear in logs.
//
// Jobs: queued until a worker takes them (BGContainerOptions.Workers,
// within the pixel budget), then processing, then completed or failed.
// ProcessingDelay keeps a job processing that long on the clock after its
// engine returned. Jobs stay until removed; RemoveImage also removes a
// queued job (it never runs) or a processing one (its engine is
// cancelled). processing_time is clock seconds from processing to
// completion.
//
// Errors: 400 invalid_parameter for a process id that is not a UUID (or is
// missing), a mode other than portrait or general, a preprocessing or
// postprocessing value other than true or false, a preprocessing_config
// that is not a JSON object; 400 unknown_parameter for another query
// parameter; 404 for an unknown or removed process id, and for a
// SubmitImage file that is not a JPEG or PNG the engine can read (code
// invalid_file); 413 for a file over BGContainerOptions.MaxFileBytes; 422
// for a SubmitImage without a file part; 500 from DownloadImage for a
// failed job; 503 while shutting down. The details of every choice (form
// parsing, preprocessing_config keys, defaults, results) are in the
// bgcontainer package documentation, which the client and the mock share.
package mockserver
