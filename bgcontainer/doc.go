// Package bgcontainer is the client of the locally deployed GPU
// background-removal container: licence activation
// (GET /Authorize/{license_key}, GET /Status), SubmitImage, CheckImage,
// DownloadImage and RemoveImage, plus WaitImage and the one-call
// RemoveBackground. It shares the transport, options, errors and
// redaction of the other pfc-go clients; package mockserver/bgmock serves
// a mock of the container (bgmock.Start) for tests and examples.
//
//	c, err := bgcontainer.NewClient(licenseKey, pfc.WithBaseURL("http://gpu-box:8000"))
//	res, err := c.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil, nil)
//
// # One call
//
// RemoveBackground (a reader and a writer) and RemoveBackgroundFile (two
// paths, the output written atomically) submit the image, applying the
// client's licence key first when the container answers that it is not
// activated, poll CheckImage with the shared backoff (context-aware,
// bounded by pfc.WaitOptions.MaxWait, reporting each state to
// pfc.WaitOptions.OnProgress), download the PNG and then always remove the job,
// also after a failure or a cancellation: the removal runs on a context of
// its own (context.WithoutCancel of the caller's, bounded by
// pfc.FlowOptions.CleanupTimeout, 10 s by default), and its outcome is in
// Result.Removed and Result.RemoveErr. A job whose submission was cut off
// before its answer arrived cannot be removed: its id is unknown.
//
// As in every client, the container's parameters (SubmitOptions) and the
// flow's controls (*pfc.FlowOptions) are separate arguments, in hosted's
// order (source, size, options, destination, flow). Result reports what
// each step did.
//
// # Uploads and downloads
//
// SubmitImage streams a multipart/form-data body from an io.ReaderAt with
// an exact Content-Length: the file is never held in memory, and a retry
// resends it from the start. The request is never resent once it may have
// reached the container (each one starts a job): only failures proving it
// never left (refused dial, DNS) or refused unread (429) are retried; an
// answer cut off mid-body is not either, and its error (matching
// pfc.ErrTruncatedResponse) says the answer was lost. The JSON answers of the
// other endpoints are retried when cut off mid-body, like a connection
// error. The file part's content type is sniffed from the bytes; the
// container answers 404 for a file it cannot read (ErrInvalidFile).
//
// DownloadImage streams the PNG to an io.Writer, DownloadImageFile to a
// temporary file renamed into place once complete. The container answers a
// final HTTP 102 Processing while the job is queued or processing, which
// net/http would wait behind forever: the transport ends the request at
// once with an error matching pfc.ErrStillProcessing, never retried. A 500
// (processing failed) is final too. The first bytes must be a PNG
// signature, else *pfc.ResponseError and nothing is written. A PNG cut off
// (closed or reset) before its Content-Length is not retried: it fails
// with an error matching pfc.ErrTruncatedResponse, and DownloadImageFile
// leaves no file. pfc.WithMaxDownloadSize bounds a download.
//
// # Records
//
// LicenseStatus reads "licensed org" and "expiration date" (both date
// forms, raw text kept); processing_time becomes a time.Duration. Unknown
// members are ignored; one of the wrong type is a *pfc.ResponseError
// naming it, as is a process_id that is not a UUID or holds the licence key.
//
// # Replicas
//
// pfc.WithReplicas (base URLs) or pfc.WithReplicaHost (a name resolving to
// several addresses) spread a client over replicas. New jobs go to the one with
// the fewest calls in flight for its weight; later calls follow them. The key
// is applied per replica on first use (Authorize: to all). A replica refusing
// connections, not answering within the response header timeout or answering
// 5xx three calls running is set aside until GET /Status answers. A call moves
// only when it provably never reached a replica: a SubmitImage whose answer was
// lost is reported, never resent; a flow (RemoveBackground, RemoveDir) whose
// replica is then down, hung past the response header timeout or answering 5xx
// (retries spent; not DownloadImage's 500) is done again on another
// (Result.LostReplicas; see Result.Abandoned) unless RemoveBackground's writer
// got bytes. A job the client did not submit is looked for on each replica,
// passing over one that fails so or answers garbage (set-aside ones last);
// Status answers from a replica that works.
//
// # Errors
//
// Every error string starts with "pfc: ", like those of the other
// clients. Arguments are checked before anything is sent: process ids
// must be canonical UUIDs (ValidateProcessID), the mode portrait or
// general, a preprocessing configuration one JSON object. Problems come
// back together as a *pfc.ValidationError naming each parameter (errors.Is
// pfc.ErrInvalidParameter, and ErrInvalidProcessID for process_id).
//
// An error answer is an *Error (Endpoint, StatusCode, ProcessID, the
// body's Code, Message and Parameter) around the *pfc.APIError of the
// response (the fields every pfc-go client's pfc.APIError has: Method, URL,
// Body, Attempts ...); errors.As finds both. It matches, with errors.Is,
// the sentinel of the API documentation's error table for its endpoint
// and status:
//
//	any image endpoint  401/403, or code not_activated  ErrNotActivated
//	SubmitImage         404                              ErrInvalidFile
//	SubmitImage         422                              ErrMissingFile
//	Check/Download/Remove 400                            ErrInvalidProcessID
//	Check/Download/Remove 404                            ErrJobNotFound
//	DownloadImage       500                              pfc.ErrJobFailed
//	DownloadImage       102                              pfc.ErrStillProcessing
//
// and the class sentinel of its status (pfc.ErrBadRequest, pfc.ErrNotFound,
// pfc.ErrServer ...), shared with the other pfc-go clients. The 500 rows of
// the other endpoints have no sentinel of their own (pfc.ErrServer); they are
// retried like any 5xx, except for SubmitImage. WaitImage reports a failed
// job as a *JobError (pfc.ErrJobFailed), a MaxWait that ran out as a
// *pfc.WaitTimeoutError (pfc.ErrWaitTimeout), a refused licence key as a
// *LicenseError (ErrNotActivated, which matches pfc.ErrUnauthorized as
// every client's refused credential does). The licence key, in any
// spelling (escaped, in another case, in hex or base64), never appears in
// errors, logs or a printed Client.
//
// # Choices where the API documentation is silent
//
// These match the mock (package mockserver), the only implementation this
// SDK is tested against:
//
//   - Before activation, image endpoints answer 403 with code
//     "not_activated"; the client also takes any 401 or 403 of an image
//     endpoint as ErrNotActivated, since the real status is not documented.
//   - /Authorize with a wrong key answers 200 with status "Unlicensed" (the
//     API documentation lists only 200, 400 and 500 for it); check
//     LicenseStatus.IsLicensed.
//   - Defaults: mode general, no pre- or postprocessing; set options only are sent.
//   - preprocessing_config is a JSON object; the mock understands "denoise"
//     (bool, default true: a median filter before segmentation) and
//     "detect_faces" (bool, default true: portrait mode seeds the subject from
//     detected faces), applied when preprocessing is enabled, and ignores
//     other keys. Malformed JSON, a value that is not an object, a bad mode
//     or a pre/postprocessing value not true or false is refused with 400.
//   - Error bodies are {"status", "code", "message", "parameter"} (the one
//     shape of every pfc-go mock); the client also reads other common shapes.
//   - Transitions: queued (waiting for a worker) → processing → completed
//     or failed; nothing else. SubmitImage's answer always says
//     "processing". DownloadImage answers 102 for a queued job too, and
//     500 for a failed one.
//   - Jobs stay until RemoveImage, which works in every state (a queued
//     job never runs, a processing one is cancelled); previous_status is
//     processing (also for a queued job), completed or failed. Process ids
//     are issued in lower case and compared as issued.
//   - Events: none; the client polls CheckImage (WaitImage), from 250 ms
//     doubling to 5 s between polls by default.
//   - Limits: the mock accepts files up to 50 MB (413 beyond) and images
//     below 200 megapixels (404 invalid_file beyond), and has no rate
//     limit; the client imposes none of its own on uploads (see
//     pfc.WithMaxDownloadSize for downloads).
//   - Versioning: none; the client does not check model_version.
//   - The result is a PNG at the input's upright size (EXIF orientation
//     applied), scaled down beyond 5000 px on the long side.
package bgcontainer
