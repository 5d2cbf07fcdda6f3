package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/http"
	"strconv"
	"time"
)

// The three headers of a webhook delivery, in the lower-case spelling the
// service documents. http.Header lookups are case-insensitive, so these work
// with Header.Get and Header.Set.
const (
	// headerID carries the event identifier, "evt_<job_id>". Retries of a
	// delivery carry the same id.
	headerID = "webhook-id"
	// headerTimestamp carries the time of sending in unix seconds.
	headerTimestamp = "webhook-timestamp"
	// headerSignature carries space-separated "<version>,<base64>" entries.
	headerSignature = "webhook-signature"
)

// signatureVersion is the only entry version this package computes and
// accepts; "v1a" is reserved by the service for a future algorithm.
const signatureVersion = "v1"

// encodedDigestLen is the length of a padded standard-base64 HMAC-SHA256
// digest: 32 bytes encode to 44 characters, the last one '='.
var encodedDigestLen = base64.StdEncoding.EncodedLen(sha256.Size)

// Canonical map keys, computed once: http.Header.Get canonicalises its
// argument on every call, which allocates for these names.
var (
	canonicalID        = http.CanonicalHeaderKey(headerID)
	canonicalTimestamp = http.CanonicalHeaderKey(headerTimestamp)
	canonicalSignature = http.CanonicalHeaderKey(headerSignature)
)

// Sign returns the three webhook headers for body, as the hosted service
// sends them: webhook-id set to id, webhook-timestamp set to timestamp in
// unix seconds, and webhook-signature set to "v1," followed by the standard
// base64 (padded) HMAC-SHA256, keyed with secret, of id + "." + timestamp +
// "." + body. secret is the raw API key bytes.
//
// Sign is meant for tests and for the mock server. It cannot fail; headers
// signed with an empty secret, an empty id or a timestamp before 1970 are
// produced but never pass a Verifier.
func Sign(secret []byte, id string, timestamp time.Time, body []byte) http.Header {
	ts := strconv.FormatInt(timestamp.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	var chunk [64]byte
	writeSignedContent(mac, &chunk, id, ts, body)
	var sum [sha256.Size]byte
	h := make(http.Header, 3)
	h[canonicalID] = []string{id}
	h[canonicalTimestamp] = []string{ts}
	h[canonicalSignature] = []string{signatureVersion + "," + base64.StdEncoding.EncodeToString(mac.Sum(sum[:0]))}
	return h
}

var dot = []byte{'.'}

// writeSignedContent feeds id "." ts "." body into mac without building the
// concatenation: the strings go through chunk, a caller-owned buffer, so the
// verification path does not allocate a []byte copy of them.
func writeSignedContent(mac hash.Hash, chunk *[64]byte, id, ts string, body []byte) {
	writeString(mac, chunk, id)
	mac.Write(dot)
	writeString(mac, chunk, ts)
	mac.Write(dot)
	mac.Write(body)
}

func writeString(mac hash.Hash, chunk *[64]byte, s string) {
	for len(s) > 0 {
		n := copy(chunk[:], s)
		mac.Write(chunk[:n])
		s = s[n:]
	}
}
