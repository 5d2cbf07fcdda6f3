// Package mockserver runs stateful mocks of the three image-processing
// APIs, in process or as the standalone binary cmd/pfc-mockserver: the
// hosted API v2 (Hosted, StartHosted), the correction container
// (PFCContainer, StartPFCContainer) and the background-removal container
// (BGContainer, StartBGContainer). Each is a thin HTTP layer over a service
// with real state, and images are processed by the reference engine.
//
// This overview covers use; the full reference (every route, the
// behaviour the mocks choose where the API documentation leaves a choice
// open, the fault-injection grammar, the containers' mounts, settings,
// logs and licensing) is docs/mockserver.md in the module's repository.
//
// # In-process use
//
//	srv := mockserver.StartHosted(t, nil) // httptest + cleanup + a ready client
//	job, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", hosted.NewCorrection(), nil)
//
// StartHosted(tb, opts, clientOpts...) takes a *HostedOptions (nil for
// the defaults) and options for the ready-made client, applied after the
// test server's own: the base URL, the httptest client, fast polling
// (every 10 to 100 ms, since a mock job takes milliseconds) and fast
// retries (after 1 to 20 ms, a Retry-After capped at 20 ms, the default 4
// retries). Shutdown is registered with tb.Cleanup: the httptest server
// closes first, then the mock, which removes its data directory.
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
//	srv := mockserver.StartHosted(t, &mockserver.HostedOptions{Clock: clock.NewFake(time.Unix(0, 0))})
//	rc := httptest.NewTLSServer(webhook.Middleware(srv.WebhookVerifier())(handler))
//
// # Processors, the engine and memory
//
// Images are corrected by the reference engine (Engine, through
// HostedEngineProcessor), or by HostedOptions.Processor when set, a
// HostedProcessor that gets a HostedJobRequest with every default and
// priority rule applied and returns a HostedJobResult (or a
// *HostedRejectError for a REJECTED job); videos pass through. NewEngine
// creates one Engine to share between several mocks. HostedOptions.BGEngine
// and BGContainerOptions.Engine pick the background-removal engine: the
// pure-Go CPU engine, or the GPU engine of a build with the tag cuda
// (CUDAEngineCompiled).
//
// Correcting an image costs about 9 bytes a pixel. Jobs are admitted
// against each backend's memory budget (the options' MemoryBudget, in
// bytes, default DefaultMemoryBudget, 1.2 GB of live heap): a job that
// would take the images being processed past it waits PENDING, in order.
// The container mocks cost an image by the memory its decoding and
// processing hold (bit depth and colour model included; a 400×300 JPEG's
// background removal about 70 MB) and refuse one over the whole budget,
// naming the option to raise; the hosted mock counts 6 bytes a pixel and
// processes an image over the budget alone. See docs/mockserver.md,
// "Memory".
//
// # Errors
//
// Every error answer, on every route of every mock backend, has one JSON
// shape (ErrorBody), with a code such as unauthorized, invalid_parameter,
// unknown_parameter or not_found and, when one parameter is to blame, its
// name:
//
//	{"status": 400, "code": "invalid_parameter", "message": "width: must be between 32 and 10000, got 5", "parameter": "width"}
//
// Parameters are checked strictly: every endpoint rejects parameters it
// does not define and repeated ones, and values outside the documented
// types and ranges; what the service ignores is accepted and ignored, as
// hosted.Plan reports it.
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
// parameters, optionally prefixed by a backend ("hosted:", "container:",
// "bg:"): rate (required, 0 to 1), kinds (500, 503, 429, reset, reset-body,
// reset-after, truncate, latency, 102), routes, seed, latency and
// retry-after. Whether the n-th request of a route is faulted, and how, is
// a function of the seed, the backend, the route and n only, so a client
// sending one request at a time meets the same faults on every run.
// FaultSpec.Observe is called after every request with a FaultEvent.
// docs/mockserver.md gives the full grammar, what each kind does and what a
// fault after the handler leaves behind, route by route.
//
// # Correction container (PFCContainer)
//
//	srv := mockserver.StartPFCContainer(t, nil) // httptest + cleanup + a ready pfccontainer client
//	corr, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", nil, nil)
//
// The mock serves PUT /pfc, GET /pfc/{imageKey}, GET /output/{name} and GET
// /version on mount directories under PFCContainerOptions.Root (a private
// temporary tree with a valid mock licence when empty). Every PFC_*
// variable of the container is a field of PFCContainerOptions
// (PFCContainerOptionsFromEnv reads them from an environment), and its
// JSON log lines, with the container's message ids, go to LogWriter.
//
// # Background-removal container (BGContainer)
//
//	srv := mockserver.StartBGContainer(t, nil) // httptest + cleanup + a ready bgcontainer client
//	res, err := srv.Client.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil, nil)
//
// The mock serves /Authorize/{license_key}, /Status, /SubmitImage,
// /CheckImage/{id}, /DownloadImage/{id} and /RemoveImage/{id}. It starts
// unactivated (unless BGContainerOptions.Activated): until /Authorize gets
// the valid key (BGContainerTestServer.LicenseKey), every image endpoint
// answers 403 not_activated. Jobs queue for a worker, run, and stay until
// removed.
//
// # The standalone binary
//
//	go run github.com/pfcsdk/pfc-go/mockserver/cmd/pfc-mockserver
//
// serves all three mocks and prints their URLs; see its documentation
// (go doc github.com/pfcsdk/pfc-go/mockserver/cmd/pfc-mockserver) for its
// flags and the environment variables it reads.
package mockserver
