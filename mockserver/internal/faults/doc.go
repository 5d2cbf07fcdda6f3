// Package faults injects seeded, reproducible failures into the mock
// backends: error answers, connection resets, truncated bodies, added
// latency and a final 102. A backend wraps its handler with an Injector
// built from a parsed Spec; the backend describes its routes (Backend) so
// that a spec can name them and the injector knows which route a request
// belongs to.
//
// # Spec
//
//	spec    = section *( ";" section )
//	section = [ backend ":" ] param *( "," param )
//	param   = "rate=" float          probability that a request is faulted, 0 to 1 (required)
//	        | "kinds=" kind *( "|" kind )   default: every kind
//	        | "routes=" route *( "|" route ) default: every route
//	        | "seed=" uint64         default 1
//	        | "latency=" duration    added by kind latency, 1ms to 10s (default 10ms)
//	        | "retry-after=" seconds Retry-After of kind 429, 0 to 3600 (default 1)
//
// A section without a backend is the default of every backend; a section
// naming a backend ("hosted", "container", "bg") applies to it only and
// inherits the parameters it does not set from the default section. A
// backend that no section names and that has no default section gets no
// faults. Parameters, kinds, routes and sections may not repeat, unknown
// names are errors, and spaces around the separators are ignored:
//
//	rate=0.2,kinds=503|429|reset|latency,seed=7
//	rate=0.1;hosted:routes=pfc|status;bg:rate=0.3,kinds=102|503
//
// # Kinds
//
// Faults before the handler (the request has no side effect):
//
//   - 500, 503: the mocks' JSON error body (internal_error, unavailable);
//     the request body is not read.
//   - 429: the JSON error body (rate_limited) with Retry-After.
//   - reset: the connection is reset (RST) before the request body is
//     read.
//   - reset-body: the request body is read to its end and discarded, then
//     the connection is reset.
//   - 102: a final "HTTP/1.1 102 Processing" status line, then the
//     connection is closed (httpx.WriteFinalStatus). Only on routes that
//     can answer it (Route.Final102, the background-removal download); a
//     section naming a backend without such a route may not list it, and
//     elsewhere (inherited from the default section too) it is never
//     drawn.
//
// Faults after the handler ran (the request had its full side effect, as
// when a real service's answer is lost on the way back):
//
//   - reset-after: the handler's answer is discarded and the connection is
//     reset.
//   - truncate: the answer is sent with its full Content-Length but only
//     the first half of its body, then the connection is closed. An
//     answer without a body is reset instead.
//
// And neither: latency delays the request by the configured latency (real
// time, bounded by the request's context), then serves it normally.
//
// # Reproducibility
//
// Decisions are a pure function of (seed, route, n), where n counts the
// requests that reached that route of that backend instance, from 0 in
// order of arrival: the n-th request of a route is faulted, and with which
// kind, identically on every run with the same spec. A client that sends
// its requests one at a time therefore meets exactly the same faults on
// every run. Under concurrency the order in which requests reach a route
// varies, so which request gets the n-th decision varies, but the
// sequence of decisions does not: for a run that sends the same number of
// requests to each route, the number of faults of each kind on each route
// is the same on every run. (Retries are requests too: a run whose
// retries differ sends different numbers of requests.)
package faults
