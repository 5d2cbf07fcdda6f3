// Package webhook verifies the webhook deliveries of the hosted correction
// API, serves them through net/http middleware with a replay and duplicate
// guard, and signs deliveries for tests and for the mock server.
//
// # Scheme
//
// When a job started with webhookUrl reaches COMPLETED or FAILED, the
// service POSTs the job record (the GET /status body) with three headers:
//
//	webhook-id:        evt_<job_id>, the same on every retry
//	webhook-timestamp: time of sending, unix seconds
//	webhook-signature: v1,<base64 HMAC-SHA256>
//
// The HMAC is keyed with the API key used on the /pfc request, as raw bytes
// (not base64-decoded, no "whsec_" prefix), and covers
// id + "." + timestamp + "." + body, the body exactly as sent.
//
// # Verification rules
//
// The API documentation leaves several points open; this package decides them
// strictly:
//
//   - The body is verified byte for byte; a re-serialised body fails.
//   - Each of the three headers must be present, non-empty and given once;
//     a repeated header is ErrInvalidHeader (a proxy might pick a different
//     copy than this package does).
//   - webhook-timestamp must be canonical unix seconds: ASCII digits only,
//     no sign, no fraction, no whitespace, no leading zero (a lone "0" is
//     canonical), at most math.MaxInt64. Anything else is
//     ErrInvalidTimestamp, before any HMAC is computed. Canonical form
//     matters because the HMAC covers the header text, not the number.
//   - webhook-signature holds space-separated "version,base64" entries.
//     Only "v1" entries are considered; others are skipped ("v1a" is
//     reserved by the service for a future algorithm), so a header with no
//     v1 entry fails. A v1 value must be exactly 44 characters of padded,
//     strict standard base64 (missing padding or non-zero trailing bits
//     fail) decoding to exactly 32 bytes; an empty or truncated value never
//     passes. Digests are compared in constant time over all 32 bytes.
//   - Several secrets may be configured (key rotation); any one matching
//     suffices.
//   - The timestamp must be within the tolerance of the clock in both
//     directions, in whole seconds, bounds included (default 5 minutes;
//     WithTolerance, WithClock). The window is checked after the
//     signature, so ErrTimestampOutOfTolerance means an
//     authentic delivery with a clock problem or a replay, never a forgery.
//   - Errors never contain a secret, a signature or a header value, and a
//     printed or logged Verifier (fmt, slog) shows only its number of
//     secrets and its tolerance.
//
// Verification of a valid delivery allocates nothing: HMAC states are
// pooled per Verifier and the signed content is streamed into the hash.
//
// # Receiving
//
// Middleware reads the body under a cap (1 MiB by default, 413 beyond),
// verifies it, answers 400 for malformed deliveries (missing, repeated or
// malformed headers, a body that is not a job record) and 401 for a bad
// signature or a timestamp outside the tolerance, with only the status text
// as body. Authentic deliveries reach the handler with r.Body restored and
// the job in the context:
//
//	v, err := webhook.NewVerifierKey(apiKey) // or NewVerifier for several keys
//	if err != nil {
//		log.Fatal(err)
//	}
//	store := webhook.NewMemoryStore(webhook.MemoryStoreOptions{})
//	mw := webhook.Middleware(v, webhook.WithIdempotency(store))
//	http.Handle("POST /webhook", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//		ev, _ := webhook.EventFromContext(r.Context())
//		// handle ev.Job (ev.ID is the webhook-id); answer 2xx only when done
//	})))
//
// # Duplicates and replays
//
// The service retries a delivery answered with a non-2xx status 8 times (9
// attempts in all, the last 48 minutes after the first), with the same
// webhook-id. WithIdempotency keys an IdempotencyStore on that id: a
// delivery already handled with a 2xx answer is acknowledged with 200
// without calling the handler; a delivery arriving while another with the
// same id is in the handler is answered 409 so the service retries later;
// when the handler answers non-2xx or panics the claim is released, so the
// retry is processed. The tolerance bounds replays to a few minutes; the
// store removes them altogether. MemoryStore keeps completed ids for 24
// hours (bounded to 100,000 ids by default); implement IdempotencyStore
// over a shared database when several processes receive deliveries.
//
// # Signing
//
// Sign produces the three headers for a body, secret, id and time, exactly
// as the service does; the mock server uses it.
package webhook
