// Package apierr builds the errors every pfc-go client returns. The error
// types and sentinels are those of the public package pfc (aliased here):
// the shared layers (transport, clientopt, fileio, poll, bulk) and the
// client packages build *pfc.APIError and *pfc.ValidationError where the
// problem arises, so no conversion happens on the way out and one errors.As
// target works with all three clients.
//
// # Service errors
//
// A response with a status of 400 or more becomes an *APIError carrying the
// status, method, redacted URL, a bounded (4 KiB) redacted copy of the body,
// the request id and, when the body carries them, the service's message and
// code. It unwraps to a sentinel by status class:
//
//	400, 422  ErrBadRequest
//	401, 403  ErrUnauthorized
//	404, 410  ErrNotFound
//	413       ErrTooLarge
//	429       ErrRateLimited
//	5xx       ErrServer
//	102       ErrStillProcessing (a final 102 Processing; see package transport)
//
// Other statuses (408, 409, 3xx ...) unwrap to nil; test StatusCode instead.
//
// None of the three APIs documents its error body, so FromResponse accepts
// the common shapes: a JSON object whose "message", "error", "detail" or
// "statusText" member is a string (or an object with a "message", or a
// FastAPI validation list of {"loc", "msg"}), with an optional "code" that
// is a string or a number and an optional "parameter" naming the parameter
// to blame (kept in APIError.Parameter); an XML <Error><Code/><Message/></Error> document
// (what object stores answer on pre-signed URLs); or a short text/plain
// body. Anything else leaves Message empty and is still kept in Body. The
// request id is taken from X-Request-Id, X-Amzn-Requestid, X-Amz-Request-Id
// or X-Correlation-Id.
//
// # Retries
//
// The transport retries before an *APIError is built: connection errors,
// 408, 429 and 5xx except 501 are retried with exponential backoff and
// jitter, honouring Retry-After (capped). When retries run out the last
// response becomes the *APIError, and Attempts says how many requests were
// sent. See package transport for the full policy, including the fact that
// GET /pfc starts a job, so a retried 5xx can start the same job twice.
//
// # Validation errors
//
// Client-side checks report every bad parameter at once in a
// *ValidationError, which unwraps to ErrInvalidParameter and lists the
// parameter names (wire names for API parameters) through Fields. Collect
// them with FieldErrors:
//
//	var errs apierr.FieldErrors
//	if q < 40 || q > 100 {
//		errs.Add("outputQuality", "must be 40..100, got %d", q)
//	}
//	return errs.Err()
//
// # Error strings
//
// Every error string the client packages and these shared layers build
// starts with "pfc: " (the module's name; the URL in an APIError says which
// API answered). Package webhook, which stands alone, uses "webhook: ".
// Strings from a server or a user's input (messages, ids, URLs, bad values
// quoted back) pass Excerpt with the client's redactor: redacted first,
// then put on one line and cut to one of the MaxQuoted lengths (see
// Secrets). A decoder's error passes DecodeError, which quotes a short
// excerpt of the offending value instead of all of it.
//
// # Secrets
//
// Error strings never contain the API key, license keys or pre-signed URL
// signatures: every string an APIError takes from a request or response has
// been passed through the client's redactor, which replaces them with
// "REDACTED" in any spelling (see package redact): as written, escaped
// for a URL, JSON, HTML or quoted-printable, in another case, in hex and
// base64.
// The body copy is cut where no secret is split, and every other cut is
// made after redaction (Excerpt), so not even a prefix of a secret
// survives a bound.
package apierr
