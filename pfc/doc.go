// Package pfc holds what the three pfc-go clients share, defined once: the
// errors they return, the transport options that configure any of them,
// the wait options, the one-call flow options, the bulk-run types and the
// correction vocabulary of the two correction APIs.
//
// The clients are hosted (the hosted correction API), pfccontainer (the
// correction container) and bgcontainer (the background-removal
// container). Learn one and you know the others.
//
// # Errors
//
// Every error a client returns classifies with the same targets:
//
//	var apiErr *pfc.APIError     // an error status the service answered
//	var ve *pfc.ValidationError  // bad input, refused before any request
//	switch {
//	case errors.As(err, &ve):
//		fmt.Println("fix:", ve.Fields())
//	case errors.Is(err, pfc.ErrRateLimited):
//		// back off
//	case errors.As(err, &apiErr):
//		fmt.Println(apiErr.StatusCode, apiErr.Message, apiErr.RequestID)
//	}
//
// An *APIError unwraps to the sentinel of its status class:
//
//	400, 422  ErrBadRequest
//	401, 403  ErrUnauthorized
//	404, 410  ErrNotFound
//	413       ErrTooLarge
//	429       ErrRateLimited
//	5xx       ErrServer
//	102       ErrStillProcessing (a final 102 Processing: poll again)
//
// Other statuses (408, 409, 3xx ...) unwrap to nil; test StatusCode.
// ErrUnauthorized also matches the background-removal container's licence
// problems (bgcontainer.ErrNotActivated, *bgcontainer.LicenseError): one
// errors.Is catches a refused credential of any client.
//
// A request that got no answer is not an *APIError. Its chain holds the
// *url.Error of the request (its URL redacted) and the cause from package
// net or io (*net.OpError, *net.DNSError, syscall.ECONNREFUSED,
// io.ErrUnexpectedEOF ...). It matches ErrUnreachable when the service
// could not be reached (connection refused, dial failed or timed out, host
// name not resolved), ErrResponseHeaderTimeout when it did not answer in
// time, and context.Canceled or context.DeadlineExceeded when the
// caller's context ended (then never ErrUnreachable):
//
//	if errors.Is(err, pfc.ErrUnreachable) {
//		// wrong address, or the service is down
//	}
//
// The containers add errors of their own that explain an answer from
// their API documentation's error tables (pfccontainer.Error,
// bgcontainer.Error): errors.As still finds the *APIError behind them.
//
// Every string in an error has passed the client's redactor first: the
// API key, licence keys and pre-signed URL signatures never appear in an
// error message, a log record or a file the SDK writes, in any spelling a
// server may echo them (escaped for a URL, JSON, HTML or quoted-printable,
// in another case, in hex or base64, wrapped over lines).
//
// # Options
//
// The transport options (WithBaseURL, required, WithHTTPClient, WithLogger,
// WithRetries, WithMaxRetryAfter, WithUserAgent, WithResponseHeaderTimeout,
// WithMaxDownloadSize) configure any client:
//
//	c, err := hosted.NewClient(apiKey, pfc.WithBaseURL("https://api.example.com/v2"),
//		pfc.WithRetries(2, time.Second, 10*time.Second))
//
// Each client package declares its own Option type, which accepts these
// and its own options (hosted.WithPolling, bgcontainer.WithPolling); an
// option of another client package is a compile error, and NewClient
// refuses one forced through a conversion with a *ValidationError naming
// it. Defaults: 4 retries with 500 ms to 20 s of jittered backoff,
// Retry-After capped at 30 s, a 5 minute response header timeout.
// WithReplicas, WithReplicaHost and WithReplicaWeight spread a container
// client over several replicas of its container; hosted.NewClient refuses
// them with a *ValidationError.
//
// # Rate budget
//
// WithRateLimit(perSecond, burst) gives a client one rate budget for all
// its calls and bulk runs at once: each attempt sent to the service's
// host (upload tickets, job starts, status polls, the containers' uploads
// and downloads, retries and redirects included) waits for a slot, and
// the wait ends with the context. Requests to pre-signed URLs (hosted
// uploads and result downloads) do not count, nor those to another host
// (a gateway set as PFC_SITE_URL). A 429 slows the whole client: its
// Retry-After, capped by WithMaxRetryAfter, holds back every request of the client, and the rate
// is halved (to 1/32 of perSecond at least), then raised by 1/100 of
// perSecond per answer that is not a 429. A container client's replicas
// share its budget. BulkProgress.Rate shows the rate allowed now;
// BulkOptions.RateLimit paces a run's file starts instead.
//
// # One-call flows
//
// hosted and pfccontainer Correct and CorrectFile (and Direct.CorrectFile),
// bgcontainer RemoveBackground and RemoveBackgroundFile take the service's
// parameters and then a *FlowOptions for the client-side controls: wait
// bounds and progress (Wait), a download limit, and the background-removal
// container's job cleanup. nil keeps the client's settings; a control the
// flow cannot honour is refused, never ignored.
//
// # Bulk runs
//
// CorrectDir and CorrectAll (hosted, pfccontainer and its Direct),
// RemoveDir and RemoveAll (bgcontainer) run a flow over many files,
// BulkOptions.Concurrency at once. A run keeps a manifest (JSON Lines;
// the Dir variants default to <outDir>/.pfc-bulk.jsonl), every string of
// it redacted; a failed file does not stop the run (BulkReport.Failures).
// The error result is non-nil only when the run itself stopped (its
// context, its options, the input or the manifest). Two files whose
// outputs would be one are not both written.
//
// The manifest records each job once the service accepted it (a "started"
// record, fsynced before the wait). A rerun skips the files done, first
// collects the jobs recorded in flight (wait, download; bgcontainer then
// removes them), and starts a job only for a file never started or whose
// job the service forgot (ErrJobForgotten: not found, past retention,
// failed, or on a replica no longer in the fleet; BulkReport.Redone).
// BulkReport counts the jobs Started and Collected and sums the hosted
// jobs' Usage. BulkOptions.MaxStarts caps the jobs started
// (ErrJobCapReached; a rerun goes on); DryRun sends nothing and fills
// BulkReport.Plan. A manifest another run holds matches ErrManifestInUse,
// a file that is no manifest ErrNotManifest; both are *ManifestError.
//
// BulkOptions.Shard makes a run one worker of n (the files whose ID
// hashes to its index; a manifest per shard), for n processes or the pods
// of a Kubernetes Indexed Job; *Shard is a flag.Value reading "i/n". Source reads the inputs from any io/fs.FS,
// streamed, never whole in memory; Sink publishes each output atomically;
// SkipExisting counts a published output as done without a manifest. The
// module contrib/pfcblob adapts a gocloud.dev/blob bucket to both.
//
// # Tracing and metrics
//
// WithObserver reports each flow, bulk run and bulk item, HTTP attempt
// (by route template, never the path), retry wait and job status change
// to an Observer; without one the clients measure nothing. The headers
// it adds (a trace context) go to the service's origin only, and an
// attempt starts once the rate budget lets it go. The module
// github.com/pfcsdk/pfc-go/contrib/pfcotel is an Observer for
// OpenTelemetry, kept out of this module's dependencies.
package pfc
