package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/internal/hostedjob"
)

// defaultTolerance is how far webhook-timestamp may be from the receiver's
// clock, in either direction, unless WithTolerance says otherwise.
const defaultTolerance = 5 * time.Minute

// strictBase64 rejects missing padding and non-zero trailing bits, so every
// digest has exactly one accepted encoding.
var strictBase64 = base64.StdEncoding.Strict()

// Verifier checks webhook deliveries against one or more secrets. It is
// safe for concurrent use; create one and share it.
//
// Printing a Verifier (fmt with any verb, String, or slog through
// LogValue) shows the number of secrets and the tolerance, never the
// secrets themselves.
type Verifier struct {
	// secrets returns the secrets. It is a function rather than a field
	// holding them because fmt prints a func as an address: a Verifier
	// that fmt reaches by value through reflection (a copy, a struct field)
	// has its fields printed one by one without its methods being called,
	// and with a bad verb even a pointer field is followed; a func never is.
	secrets   func() [][]byte
	tolerance time.Duration
	now       func() time.Time
	// states pools one HMAC per secret plus scratch space, so a
	// verification allocates nothing.
	states sync.Pool
}

// macState is the per-verification scratch space handed out by the pool.
type macState struct {
	macs   []hash.Hash
	sums   [][sha256.Size]byte
	summed bool
	chunk  [64]byte
	// decoded has room for one byte more than a digest, although the length
	// check before decoding already guarantees at most 32 bytes.
	decoded [sha256.Size + 1]byte
}

// Option configures a Verifier.
type Option func(*verifierConfig)

type verifierConfig struct {
	tolerance time.Duration
	now       func() time.Time
}

// WithTolerance sets how far webhook-timestamp may be from the clock, in
// either direction; the default is 5 minutes. Comparison is in
// whole seconds: a timestamp exactly d away is accepted. d must be at least
// one second.
func WithTolerance(d time.Duration) Option {
	return func(c *verifierConfig) { c.tolerance = d }
}

// WithClock sets the clock the timestamp is checked against; the default
// is time.Now. Useful in tests and when re-verifying stored deliveries.
func WithClock(now func() time.Time) Option {
	return func(c *verifierConfig) { c.now = now }
}

// standardWebhooksPrefix starts the base64 signing secrets of Standard
// Webhooks senders; this service keys its HMAC with the raw API key.
const standardWebhooksPrefix = "whsec_"

// NewVerifierKey returns a Verifier for deliveries signed with apiKey, the
// API key of the /pfc requests (the common case of NewVerifier).
func NewVerifierKey(apiKey string, opts ...Option) (*Verifier, error) {
	return NewVerifier([][]byte{[]byte(apiKey)}, opts...)
}

// NewVerifier returns a Verifier that accepts deliveries signed with any of
// secrets, which are raw API key bytes (not base64-decoded, and not a
// Standard Webhooks "whsec_..." secret: such a secret fails with
// ErrInvalidSecret). Give several during a key rotation:
// retries of deliveries for jobs started with the old key are still signed
// with it. The secrets are copied.
//
// It fails with ErrInvalidSecret when secrets is empty or holds an empty
// secret, and with ErrInvalidOption for a tolerance under one second or a
// nil clock.
func NewVerifier(secrets [][]byte, opts ...Option) (*Verifier, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: no secret given", ErrInvalidSecret)
	}
	cfg := verifierConfig{tolerance: defaultTolerance, now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.tolerance < time.Second {
		return nil, fmt.Errorf("%w: tolerance %v is under one second", ErrInvalidOption, cfg.tolerance)
	}
	if cfg.now == nil {
		return nil, fmt.Errorf("%w: nil clock", ErrInvalidOption)
	}
	keys := make([][]byte, len(secrets))
	v := &Verifier{
		secrets:   func() [][]byte { return keys },
		tolerance: cfg.tolerance,
		now:       cfg.now,
	}
	for i, s := range secrets {
		if len(s) == 0 {
			return nil, fmt.Errorf("%w: secret %d of %d", ErrInvalidSecret, i+1, len(secrets))
		}
		if bytes.HasPrefix(s, []byte(standardWebhooksPrefix)) {
			// The secret itself is not quoted.
			return nil, fmt.Errorf("%w: secret %d of %d starts with %q, the form of a Standard Webhooks signing secret; "+
				"this service signs with the API key used on /pfc: pass the raw API key, e.g. webhook.NewVerifierKey(apiKey)",
				ErrInvalidSecret, i+1, len(secrets), standardWebhooksPrefix)
		}
		keys[i] = bytes.Clone(s)
	}
	v.states.New = func() any {
		st := &macState{
			macs: make([]hash.Hash, len(keys)),
			sums: make([][sha256.Size]byte, len(keys)),
		}
		for i, s := range keys {
			st.macs[i] = hmac.New(sha256.New, s)
		}
		return st
	}
	return v, nil
}

// Verify checks a delivery: h holds the request headers and body the raw
// request body exactly as received. It returns nil when some "v1" entry of
// webhook-signature is the HMAC of the delivery under one of the secrets
// and webhook-timestamp is within the tolerance of the clock.
//
// Header problems are reported before the signature is checked (a
// *HeaderError wrapping ErrInvalidHeader or
// ErrInvalidTimestamp); then ErrNoValidSignature; the timestamp window is
// checked last, so ErrTimestampOutOfTolerance (in a *TimestampError) is
// only reported for authentic deliveries.
//
// Verify allocates nothing when the delivery is valid.
func (v *Verifier) Verify(h http.Header, body []byte) error {
	if v.numSecrets() == 0 {
		return errUnusableVerifier
	}
	d, err := parseHeaders(h)
	if err != nil {
		return err
	}
	return v.verify(d, body)
}

// VerifyJob verifies the delivery like Verify and then decodes the body
// into the job record, a *hosted.Job (the same type). An authentic body that is not a JSON object, or does
// not fit hosted.Job, gives an error wrapping ErrInvalidPayload and the
// encoding/json error. Unknown fields are ignored, so new service fields do
// not break receivers.
func (v *Verifier) VerifyJob(h http.Header, body []byte) (*hostedjob.Job, error) {
	if err := v.Verify(h, body); err != nil {
		return nil, err
	}
	return decodeJob(body)
}

// Verify is a convenience for a single secret and the default options: it
// builds a Verifier on every call, so prefer NewVerifier for a server.
func Verify(secret []byte, h http.Header, body []byte) error {
	v, err := NewVerifier([][]byte{secret})
	if err != nil {
		return err
	}
	return v.Verify(h, body)
}

// VerifyJob is Verify for one secret followed by the decoding of the
// body as the job record, a *hosted.Job (the same type; see its fields
// there): Verifier.VerifyJob for a single secret and the default options.
func VerifyJob(secret []byte, h http.Header, body []byte) (*hostedjob.Job, error) {
	v, err := NewVerifier([][]byte{secret})
	if err != nil {
		return nil, err
	}
	return v.VerifyJob(h, body)
}

// numSecrets returns the number of secrets; 0 for a nil or zero Verifier,
// which cannot verify anything.
func (v *Verifier) numSecrets() int {
	if v == nil || v.secrets == nil {
		return 0
	}
	return len(v.secrets())
}

// Format prints the verifier as "webhook.Verifier(<n> secrets, tolerance
// <d>)" whatever the verb (%v, %+v, %#v, %s, %x ...): it holds the secrets,
// and printing it by mistake, through fmt or a slog handler, must not
// reveal them. A nil *Verifier prints as "<nil>".
func (v *Verifier) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, v.String())
}

// String returns the same text as Format.
func (v *Verifier) String() string {
	if v == nil {
		return "<nil>"
	}
	n := v.numSecrets()
	noun := "secrets"
	if n == 1 {
		noun = "secret"
	}
	return "webhook.Verifier(" + strconv.Itoa(n) + " " + noun + ", tolerance " + v.tolerance.String() + ")"
}

// LogValue makes slog print the verifier as a group of its number of
// secrets and its tolerance, without the secrets; a nil *Verifier logs as
// "<nil>".
func (v *Verifier) LogValue() slog.Value {
	if v == nil {
		return slog.StringValue("<nil>")
	}
	return slog.GroupValue(slog.Int("secrets", v.numSecrets()), slog.Duration("tolerance", v.tolerance))
}

// errUnusableVerifier is returned by the methods of a nil or zero Verifier
// instead of panicking.
var errUnusableVerifier = fmt.Errorf("%w: Verifier not made by NewVerifier", ErrInvalidSecret)

// delivery is the parsed header triple.
type delivery struct {
	id, timestamp, signature string
	seconds                  int64
}

func parseHeaders(h http.Header) (delivery, error) {
	var d delivery
	var err error
	if d.id, err = headerValue(h, canonicalID, headerID); err != nil {
		return d, err
	}
	if d.timestamp, err = headerValue(h, canonicalTimestamp, headerTimestamp); err != nil {
		return d, err
	}
	if d.signature, err = headerValue(h, canonicalSignature, headerSignature); err != nil {
		return d, err
	}
	if d.seconds, err = parseTimestamp(d.timestamp); err != nil {
		return d, err
	}
	return d, nil
}

// headerValue returns the single value of a header. It also looks under
// the lower-case name, for maps built by hand rather than by net/http, and
// refuses a header given twice: a proxy and this package could otherwise
// disagree on which one counts.
func headerValue(h http.Header, canonical, lower string) (string, error) {
	values := h[canonical]
	if alt := h[lower]; len(alt) > 0 {
		if len(values) > 0 {
			return "", &HeaderError{Header: lower, Reason: "repeated", Err: ErrInvalidHeader}
		}
		values = alt
	}
	switch {
	case len(values) == 0 || values[0] == "":
		return "", &HeaderError{Header: lower, Err: ErrInvalidHeader}
	case len(values) > 1:
		return "", &HeaderError{Header: lower, Reason: "repeated", Err: ErrInvalidHeader}
	}
	return values[0], nil
}

// parseTimestamp accepts canonical decimal unix seconds only: digits, no
// sign, no leading zero (a lone "0" is canonical), no fraction, no
// whitespace, at most math.MaxInt64. Canonical form matters because the
// signed content holds the header text, not the number.
func parseTimestamp(s string) (int64, error) {
	if s == "" {
		return 0, &HeaderError{Header: headerTimestamp, Err: ErrInvalidHeader}
	}
	if s[0] == '0' && len(s) > 1 {
		return 0, &HeaderError{Header: headerTimestamp, Reason: "leading zero", Err: ErrInvalidTimestamp}
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, &HeaderError{Header: headerTimestamp, Reason: "not decimal unix seconds", Err: ErrInvalidTimestamp}
		}
		digit := int64(c - '0')
		if n > (math.MaxInt64-digit)/10 {
			return 0, &HeaderError{Header: headerTimestamp, Reason: "out of range", Err: ErrInvalidTimestamp}
		}
		n = n*10 + digit
	}
	return n, nil
}

func (v *Verifier) verify(d delivery, body []byte) error {
	st := v.states.Get().(*macState)
	err := v.checkSignature(st, d, body)
	v.states.Put(st)
	if err != nil {
		return err
	}
	now := v.now()
	nowSec := now.Unix()
	tol := uint64(v.tolerance / time.Second)
	if absDiff(nowSec, d.seconds) <= tol {
		return nil
	}
	return &TimestampError{Timestamp: time.Unix(d.seconds, 0), Now: now, Tolerance: v.tolerance, Err: ErrTimestampOutOfTolerance}
}

// checkSignature walks the space-separated entries of the signature header
// and reports whether one "v1" entry matches under some secret. The HMACs
// are computed once, on the first well-formed v1 entry.
func (v *Verifier) checkSignature(st *macState, d delivery, body []byte) error {
	st.summed = false
	sawV1 := false
	rest := d.signature
	for rest != "" {
		var entry string
		entry, rest, _ = strings.Cut(rest, " ")
		version, encoded, ok := strings.Cut(entry, ",")
		if !ok || version != signatureVersion {
			continue // empty entry, or another version ("v1a" is reserved)
		}
		sawV1 = true
		if !v.decodeDigest(st, encoded) {
			continue
		}
		if !st.summed {
			for i, mac := range st.macs {
				mac.Reset()
				writeSignedContent(mac, &st.chunk, d.id, d.timestamp, body)
				mac.Sum(st.sums[i][:0])
			}
			st.summed = true
		}
		for i := range st.sums {
			// Full-length constant-time comparison of the whole digest.
			if hmac.Equal(st.decoded[:sha256.Size], st.sums[i][:]) {
				return nil
			}
		}
	}
	if !sawV1 {
		return errNoV1Entry
	}
	return errNoMatch
}

// decodeDigest decodes one entry value into st.decoded and reports whether
// it is exactly a 32-byte digest in padded, strict standard base64. The
// length check comes first: it rules out truncated, unpadded and overlong
// values, and keeps Decode within the buffer.
func (v *Verifier) decodeDigest(st *macState, encoded string) bool {
	if len(encoded) != encodedDigestLen {
		return false
	}
	for i := 0; i < len(encoded); i++ {
		// The decoder skips CR and LF; a signature must not contain them.
		if encoded[i] == '\r' || encoded[i] == '\n' {
			return false
		}
	}
	n, err := strictBase64.Decode(st.decoded[:], copyToChunk(encoded, &st.chunk))
	return err == nil && n == sha256.Size
}

// copyToChunk copies s (at most 64 bytes, checked by the caller) into
// chunk and returns the copy, sparing the allocation of []byte(s).
func copyToChunk(s string, chunk *[64]byte) []byte {
	n := copy(chunk[:], s)
	return chunk[:n]
}

// decodeJob decodes an authentic body into a job record.
func decodeJob(body []byte) (*hostedjob.Job, error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: body is not a JSON object", ErrInvalidPayload)
	}
	job := new(hostedjob.Job)
	if err := json.Unmarshal(body, job); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPayload, err)
	}
	return job, nil
}
