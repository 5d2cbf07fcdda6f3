// Package transport is the one HTTP layer shared by the hosted,
// pfccontainer and bgcontainer clients. It is built on
// github.com/hashicorp/go-retryablehttp with every hook supplied by this
// package: retryablehttp's own logger and "giving up" error quote URLs with
// their query (pre-signed signatures), so its Logger is nil and its
// CheckRetry, Backoff, ErrorHandler and log hooks are ours: methods of
// the call, each call with its own retryablehttp.Client and its own copy
// of the http.Client, whose Transport runs the call's attempts.
//
// # Requests
//
// Do and DoJSON call the API: the path is joined to Options.BaseURL (its
// path prefix, such as /v2, is kept), Query is encoded with spaces as %20,
// the credential header (Options.AuthHeader/AuthValue, e.g. X-API-KEY) is
// added, and every request carries User-Agent "pfc-go/<version>" plus the
// caller's product token. DoJSON also sends Accept: application/json.
// DoExternal calls an absolute URL outside the API (a pre-signed upload or
// download URL) with the same retry engine but never with the credential.
//
// 2xx responses, and 3xx ones the caller asked not to follow, are returned
// to the caller, who closes the body. Any status of 400 or more becomes an
// *apierr.APIError with the status, the service's message and code, a
// bounded redacted copy of the body and the number of attempts. Transport
// failures keep their cause in the chain (errors.Is(err, context.Canceled),
// errors.As(err, **url.Error)) but their text and URL are redacted; when
// the last attempt could not reach the server (dial refused or failed,
// host not resolved) and the context is still live, the error also
// matches apierr.ErrUnreachable.
//
// # Retry policy
//
// An attempt is retried when it failed with:
//
//   - a connection-level error (refused, reset, unexpected EOF, or the
//     per-attempt Timeout of the caller's http.Client);
//   - 408 Request Timeout, 429 Too Many Requests, or any 5xx except
//     501 Not Implemented;
//   - for DoJSON, and Do of an Endpoint with Buffer (the JSON answers a
//     client decodes itself), a 2xx answer whose body could not be read to
//     its end: the connection closed before the declared Content-Length or
//     the final chunk (io.ErrUnexpectedEOF), was reset while the body was
//     read, or the read timed out. The body (at most 32 MiB) is read
//     inside the attempt, so such an answer is a failed attempt, retried
//     exactly like a connection error: same backoff, same attempt budget,
//     same deadline rule below. A complete body that is not valid JSON is
//     a decoding error and is not retried (a server that closes a response
//     without Content-Length or chunking cannot be told apart from a
//     complete one). When the retries run out the error matches
//     apierr.ErrTruncatedResponse and keeps the read error in its chain.
//
// Otherwise Do returns the response with its body unread: reading it is
// the caller's business, and a download streamed to the caller's writer is
// never retried here (bytes may already have been written). A read of
// such a body that fails before its end (the connection closed before the
// Content-Length or the final chunk, or reset) fails with an error
// matching apierr.ErrTruncatedResponse that keeps the read error; the
// caller's cancellation and the body bound below keep their own. The
// clients also report a clean end short of the Content-Length so, and
// their file variants leave no file.
//
// It is not retried after a cancellation or when the context is done, on
// TLS certificate errors, malformed requests (unsupported scheme, invalid
// header), a redirect-policy stop (more than 10 redirects, or the caller's
// CheckRedirect refusing), a failure of the caller's body source, or any
// other status. Up to Options.MaxRetries retries (default 4, so at most 5
// attempts) are made.
//
// The wait before retry n (0-based) is exponential with equal jitter: a
// random duration between d/2 and d, where d = MinRetryWait·2^n capped at
// MaxRetryWait (defaults 500ms and 20s). A response's Retry-After, in
// seconds or as an HTTP date, replaces the backoff but is capped at
// Options.MaxRetryAfter (default 30s). Waits end at once when the context
// is done, and the call returns the context's error. When the context has a
// deadline and the next wait would pass it, no retry is made: the call
// returns the last result at once (the last response as an *APIError, or
// the last transport error) instead of sleeping into a bare deadline error.
// When retries run out, the last response likewise reaches the caller as an
// *APIError whose Attempts counts every request sent.
//
// # Endpoints and their policy
//
// Each client declares each endpoint of its API once, in a table of
// Endpoint values (endpoints.go): its name, method, route template as the
// API documentation writes it ("/CheckImage/{process_id}") and named
// policies. A Request carries its Endpoint and the route's parameters
// (Request.Params, each escaped as one path segment); the policy is read
// from the Endpoint, never from the context. Log records of such a call
// carry the route template (attribute "route") beside the redacted URL.
//
// An Endpoint without Replay must not be sent twice once it may
// have reached the server (the background-removal container's multipart
// POST /SubmitImage creates a process per request): it is retried only
// after a failure that proves it never left (no connection was obtained,
// the dial was refused or failed, the host did not resolve) or that it was
// refused unread (429 Too Many Requests). No other status is retried for
// it, not even 408 or 5xx, and no error after the
// connection was made (reset, EOF, response header timeout), nor a 2xx
// answer cut off while its body was read: the call fails with an error
// matching apierr.ErrTruncatedResponse that says the request may have been
// processed and its answer was lost.
//
// A client with several replicas of one service (internal/replicas) sends
// through Send, whose SendOptions carry the router's state of the call,
// not a policy of the endpoint: with FailOver, an attempt that provably
// never reached the server ends the call at once (the CheckRetry hook
// stops there) instead of being retried on the same replica, and
// NeverSent tells the router so, which may then send it to another one.
// Send returns the call's Outcome (its attempts, and whether a retry
// followed an attempt that may have been processed) beside the answer.
// Endpoint.Move, a policy of the endpoint, tells the router whether the
// call may go to another replica at all.
//
// Endpoint.Final lists statuses an endpoint documents as final
// (e.g. 500 "processing failed" of GET /DownloadImage): they are returned
// at once, and Endpoint.FinalAnswer tells final answers from transient
// ones of the same status by their code or message. Other statuses keep
// the default policy.
//
// # Final 102 Processing
//
// The background-removal container answers GET /DownloadImage with HTTP 102
// while the image is still processing. Go's client treats every 1xx as
// informational and waits for a final response that such a server never
// sends. Each attempt therefore watches for 1xx answers
// (httptrace.ClientTrace.Got1xxResponse), with this rule:
//
//   - a request of an Endpoint with Final102 ends the attempt on a 102
//     at once: the connection is dropped and the call returns an
//     *apierr.APIError with StatusCode 102 (headers such as the request id
//     kept) that matches apierr.ErrStillProcessing. It is not a failure and
//     is never retried; poll again later;
//   - any other request skips informational 1xx answers (102, 103 Early
//     Hints ...) as HTTP says and uses the final status that follows. Only
//     when the attempt fails after a 102, before any final status (a server
//     that answered a final 102 and closed, or held the connection past the
//     response header timeout), is the result the same still-processing
//     *APIError instead of a retried connection error.
//
// A 1xx other than 102 never ends an attempt.
//
// # Response header timeout
//
// Each attempt, and each redirect hop, waits at most
// Options.ResponseHeaderTimeout (default DefaultResponseHeaderTimeout, 5
// minutes: the correction container answers its synchronous GET
// /pfc/{imageKey} only once the image is corrected) for the response
// headers once the request is written, so a silent server cannot hang a
// call made without a context deadline. While the request body is sent
// the timer restarts as the transport reads it, so it ends only an upload
// that makes no progress for that long (the error says so): uploads of any
// size work. Once the headers arrive, the bound applies again, restarted
// as bytes arrive, to the bodies the transport reads itself: a 2xx answer
// it buffers (Endpoint.Buffer, DoJSON; at most Endpoint.BufferLimit) and
// the body of every 3xx, 4xx and 5xx answer (read at once, at most 64 KiB
// kept, for the retry drain and the *apierr.APIError's copy). A body that
// stops arriving ends the attempt: a buffered 2xx answer fails like one
// cut off, an error answer keeps its status and what of its body arrived.
// A body left to the caller (a download) is bounded read by read: a Read
// that waits about the bound (at least fifteen sixteenths of it) without a
// byte fails, and so does every later one, while the time the caller
// spends between reads does not count, so downloads of any size and pace
// work. It is a timer of this package, not a setting of the caller's
// http.Client or Transport, which are never modified. An attempt that
// runs out fails with an error matching apierr.ErrResponseHeaderTimeout
// (and net.Error with Timeout() true), retried like a connection failure
// unless its Endpoint forbids Replay. A negative value disables the bound.
//
// Retries are not limited to idempotent methods, because none of the three
// APIs offers idempotency keys and their failures are mostly transient. The
// consequence to know: GET /pfc on the hosted API starts a correction job,
// so a 5xx whose job had in fact been created, retried, can start a
// duplicate job, and so can a /pfc answer cut off mid-body (the job exists,
// its answer was lost): the same case (likewise POST /presets/ a duplicate
// preset, answered 409 on the retry, and POST /SubmitImage of the
// background-removal container a duplicate process, were it replayed). On the hosted API
// cache=true (the default) makes a duplicate /pfc harmless: the service
// reuses the corrected output of identical input and settings instead of
// processing the image again (a webhook, if requested, may then arrive for
// both jobs). With cache=false a duplicate is a second full job. Callers
// who cannot tolerate duplicates set MaxRetries < 0; client code declares
// such endpoints without Endpoint.Replay.
//
// # Bodies
//
// No code path reads a caller's body into memory. A Body is replayed from
// its source on every attempt: BytesBody (the caller's slice), JSONBody,
// ReaderAtBody (a fresh io.SectionReader per attempt, exact Content-Length;
// for files), MultipartBody (text fields and one file part from an
// io.ReaderAt: the part headers are built once, the file is streamed through
// a fresh io.SectionReader per attempt, with an exact Content-Length),
// StreamBody (reopened per attempt, e.g. an io.Pipe fed by a writer;
// chunked when the size is unknown). ReaderBody wraps a
// plain io.Reader that can be read once: a failed attempt is retried only
// if no byte of it was consumed, otherwise the error wraps
// ErrBodyNotReplayable and says why. retryablehttp would io.ReadAll a plain
// reader to make it replayable, so it is only ever given a function, and
// Content-Length is set here (a known empty body is sent as http.NoBody with
// Content-Length 0). A source that ends before its declared size, or fails,
// ends the call without retrying.
//
// # Redirects
//
// API requests follow redirects unless Request.NoFollowRedirects is set, in
// which case the 3xx response is returned (each call sends through its own
// copy of the http.Client, whose CheckRedirect is the call's: nothing of
// the call travels in the request context). net/http copies the first request's headers
// to every hop and strips only Authorization and Cookie on a domain change,
// so a custom credential header would follow a redirect anywhere: this
// package removes it, in any spelling, from any hop whose URL, or any
// earlier hop's, is not on the BaseURL's origin (scheme, host and port).
// net/http also gives each hop a Referer holding the previous hop's full
// URL (a license key in the path, a pre-signed signature in the query), so
// the Referer is dropped too, unless the caller set one on the request.
// The caller's own CheckRedirect still runs, on the stripped hop, and
// cannot put them back. DoExternal follows redirects and never had the
// credential to begin with. A 307 or 308 resends the body from its source,
// with the same Content-Length.
//
// # Secrets and logging
//
// Options.AuthValue, Options.Secrets (e.g. a license key sent as a path
// segment) and Request.Secrets, in every spelling package redact reads
// (any mix of URL, JSON, JavaScript, HTML and quoted-printable escapes,
// MIME line wrapping; a secret of 8 bytes or more also in any case, in
// hex and in base64), are replaced by "REDACTED" in every
// error string, every log record and in APIError.URL, Message, Code and
// Body. For DoExternal every query value of the URL is replaced by REDACTED
// (pre-signed URLs carry their signature, credential and token there), and
// values of 8 characters or more are also removed from error bodies (an
// object store's SignatureDoesNotMatch answer echoes the signature). The
// same goes for the query values of a redirect target outside the API
// origin. Redirect targets are always logged with their query values
// hidden, and an unparsable Location is never quoted. Printing a Client
// with fmt shows its BaseURL only.
//
// Logging is off unless Options.Logger is set. Records carry the method,
// the redacted URL, the attempt number and the status, never headers or
// bodies: Debug "pfc: sending request" per attempt, "pfc: response" per
// response and "pfc: following redirect" per hop, Warn "pfc: retrying
// request" before each wait (with the wait and whether it came from
// Retry-After), and Warn "pfc: request failed" when a call fails although
// the policy would retry its last attempt: no retries left, the wait
// would pass the context deadline, or the body cannot be sent again (with
// the attempts, the reason and the call's redacted error).
//
// # Connections
//
// Options.HTTPClient is shallow-copied; its Transport is wrapped so that
// retryablehttp's habit of closing all idle connections after each failed
// call does not disturb concurrent calls. A nil transport means
// http.DefaultTransport, looked up per request. With a nil HTTPClient the
// Client uses a pooled client of its own (a clone of
// http.DefaultTransport); CloseIdleConnections
// releases its idle connections.
package transport
