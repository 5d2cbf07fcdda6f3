// Package hostedmock is a stateful mock of the hosted API v2: an
// http.Handler (Server, from New) serving /v2/... (API key required),
// /storage/... (pre-signed uploads) and /files/... (public results), and
// an in-process test server (Start). Images are processed by the
// reference engine, or by a Processor of your own. What the three mocks
// share (errors, fault injection, the choice of background-removal
// engine) is package mockserver; the full reference is docs/mockserver.md
// in the module's repository.
//
// # In-process use
//
//	srv := hostedmock.Start(t, nil) // httptest + cleanup + a ready client
//	job, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", hosted.NewCorrection(), nil)
//
// Start(tb, opts, clientOpts...) takes a *Options (nil for
// the defaults) and options for the ready-made client, applied after the
// test server's own: the base URL, the httptest client, fast polling
// (every 10 to 100 ms, since a mock job takes milliseconds) and fast
// retries (after 1 to 20 ms, a Retry-After capped at 20 ms, the default 4
// retries). Shutdown is registered with tb.Cleanup: the httptest server
// closes first, then the mock, which removes its data directory.
//
// Without testing.TB, New returns an http.Handler to mount on any
// server (close the server first, then Server.Close).
//
// # Time
//
// Tests control time with a clock.Fake in Options.Clock. After a
// request, TestServer.WaitIdle (or Server.WaitIdle) returns once
// nothing runs but timers, and TestServer.Advance steps the fake
// clock through every due timer, waiting for the work each one starts:
// processing delays, retention, URL expiry and webhook retries happen at
// their simulated times, without sleeping.
//
// Webhook deliveries are stamped with the server's clock, so a
// webhook.Verifier checking against the real clock rejects those of a
// server whose fake clock is far from now. TestServer.WebhookVerifier
// returns a verifier for the server's API keys on its clock, and
// TestServer.WebhookClock the webhook.WithClock option for a
// verifier (or webhook.Middleware) of your own:
//
//	srv := hostedmock.Start(t, &hostedmock.Options{Clock: clock.NewFake(time.Unix(0, 0))})
//	rc := httptest.NewTLSServer(webhook.Middleware(srv.WebhookVerifier())(handler))
//
// # Processors, the engine and memory
//
// Images are corrected by the reference engine, or by Options.Processor
// when set: a Processor gets a JobRequest with every default and priority
// rule applied and returns a JobResult (or a *RejectError for a REJECTED
// job); videos pass through. JobRequest, JobResult and RejectError are
// the service's own types, so a processor sees exactly what the service
// parsed. NewEngineProcessor returns the reference engine as a Processor
// to share between several mocks. Options.BGEngine picks the engine's
// background removal (mockserver.BGEngine).
//
// Correcting an image costs about 9 bytes a pixel. The hosted mock counts
// 6 bytes a pixel against Options.MemoryBudget (default
// mockserver.DefaultMemoryBudget, 1.2 GB of live heap): a job that would
// take the images being processed past it waits PENDING, in order, and
// an image over the whole budget is processed alone. See
// docs/mockserver.md, "Memory".
package hostedmock
