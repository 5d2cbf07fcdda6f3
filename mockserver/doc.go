// Package mockserver is what the stateful mocks of the three
// image-processing APIs share; each mock is a package of its own:
//
//   - hostedmock: the hosted API v2 (hostedmock.Start, hostedmock.New)
//   - pfcmock: the correction container (pfcmock.Start, pfcmock.New)
//   - bgmock: the background-removal container (bgmock.Start, bgmock.New)
//
// Each runs in process (Start: an httptest server, its cleanup and a
// ready client; New: an http.Handler) or in the standalone binary
// cmd/pfc-mockserver, and is a thin HTTP layer over a service with real
// state; images are processed by the reference engine. This package holds
// what the three share: the error body (ErrorBody), the fault injection
// (FaultSpec, ParseFaults), the choice of background-removal engine
// (BGEngine), the default memory budget and the shared errors.
//
// This overview covers the shared parts; the full reference (every route,
// the behaviour the mocks choose where the API documentation leaves a
// choice open, the fault-injection grammar, the containers' mounts,
// settings, logs and licensing) is docs/mockserver.md in the module's
// repository.
//
// # Memory
//
// Jobs are admitted against each mock's memory budget (its options'
// MemoryBudget, in bytes, default DefaultMemoryBudget, 1.2 GB of live
// heap): a job that would take the images being processed past it waits,
// in order. See docs/mockserver.md, "Memory".
//
// # Background-removal engine
//
// hostedmock.Options.BGEngine and bgmock.Options.Engine pick the
// background-removal engine: the pure-Go CPU engine (BGEngineCPU), or the
// GPU engine of a build with the tag cuda (BGEngineCUDA,
// CUDAEngineCompiled), or the GPU where it can run (BGEngineAuto).
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
// Each backend takes a *FaultSpec (hostedmock.Options.Faults,
// pfcmock.Options.Faults, bgmock.Options.Faults; the binary's
// -faults flag) that makes it fail some requests on purpose, reproducibly,
// to test a client's retries and cleanup:
//
//	spec, err := mockserver.ParseFaults("rate=0.2,kinds=503|429|reset|latency,seed=7")
//	srv := hostedmock.Start(t, &hostedmock.Options{Faults: spec})
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
// # Request limit
//
// Each backend's RateLimit option (the binary's -rate-limit) bounds the
// requests of each API key (hosted, API requests only) or client address
// (containers) to that many per second on the mock's clock; above it the
// answer is 429 rate_limited with a Retry-After in whole seconds, at least
// 1. docs/mockserver.md says what counts.
//
// # The standalone binary
//
//	go run github.com/pfcsdk/pfc-go/mockserver/cmd/pfc-mockserver
//
// serves all three mocks and prints their URLs; see its documentation
// (go doc github.com/pfcsdk/pfc-go/mockserver/cmd/pfc-mockserver) for its
// flags and the environment variables it reads.
package mockserver
