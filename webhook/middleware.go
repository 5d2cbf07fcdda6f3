package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/hostedjob"
)

// defaultMaxBodyBytes is the middleware's default cap on the request body.
// Job records are a few KiB; the cap keeps a hostile sender from making the
// receiver buffer and hash arbitrary amounts of data.
const defaultMaxBodyBytes int64 = 1 << 20

// MiddlewareOption configures Middleware.
type MiddlewareOption func(*middlewareConfig)

type middlewareConfig struct {
	maxBodyBytes int64
	store        IdempotencyStore
	onError      func(*http.Request, error)
}

// WithMaxBodyBytes caps the request body; a larger body is answered 413
// without being verified. n <= 0 means the default, 1 MiB.
func WithMaxBodyBytes(n int64) MiddlewareOption {
	return func(c *middlewareConfig) {
		if n > 0 {
			c.maxBodyBytes = n
		}
	}
}

// WithIdempotency turns on the replay and duplicate guard: a delivery whose
// webhook-id was already handled successfully is answered 200 without
// calling the handler, a delivery that arrives while one with the same id
// is being handled is answered 409 (the service retries it later), and a
// delivery whose earlier attempt failed is processed again. Use
// NewMemoryStore for a single process.
func WithIdempotency(store IdempotencyStore) MiddlewareOption {
	return func(c *middlewareConfig) { c.store = store }
}

// WithErrorHook sets a function that receives the real error of every
// delivery the middleware answers with an error status (the response itself
// stays terse), and errors of the idempotency store after the handler ran.
// Use it for logging. It runs on the request goroutine before the response
// is written.
func WithErrorHook(fn func(r *http.Request, err error)) MiddlewareOption {
	return func(c *middlewareConfig) { c.onError = fn }
}

type eventContextKey struct{}

// Event is a verified delivery as Middleware hands it to the handler.
type Event struct {
	// ID is the webhook-id header: the same on every retry of one
	// delivery, so a handler can use it to recognise duplicates itself.
	ID string
	// Timestamp is the webhook-timestamp header, the time of sending.
	Timestamp time.Time
	// Job is the decoded job record, a *hosted.Job (the same type: see
	// its fields there); this package does not import the hosted client.
	Job *hostedjob.Job
}

// EventFromContext returns the verified delivery (webhook-id, timestamp and
// job record) that Middleware stored in the request context.
func EventFromContext(ctx context.Context) (*Event, bool) {
	ev, ok := ctx.Value(eventContextKey{}).(*Event)
	return ev, ok && ev != nil
}

// JobFromContext returns the verified job record, a *hosted.Job, that
// Middleware stored in the request context (EventFromContext(ctx).Job).
func JobFromContext(ctx context.Context) (*hostedjob.Job, bool) {
	ev, ok := EventFromContext(ctx)
	if !ok || ev.Job == nil {
		return nil, false
	}
	return ev.Job, true
}

// Middleware returns net/http middleware that passes only authentic
// webhook deliveries to the wrapped handler. The body is read under a cap
// (WithMaxBodyBytes; 413 beyond it); missing, repeated or malformed headers
// and bodies that are not a job are answered 400, a bad signature or a
// timestamp outside the tolerance 401, with only the status text. The
// handler gets r.Body restored to the verified bytes and the delivery in
// the context (EventFromContext, JobFromContext). WithIdempotency filters
// duplicates by webhook-id. The method is not checked: the signature does
// not cover it. v must come from NewVerifier; Middleware panics otherwise.
func Middleware(v *Verifier, opts ...MiddlewareOption) func(http.Handler) http.Handler {
	if v.numSecrets() == 0 {
		panic("webhook: Middleware: Verifier not made by NewVerifier")
	}
	cfg := middlewareConfig{maxBodyBytes: defaultMaxBodyBytes}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	return func(next http.Handler) http.Handler {
		return &receiver{v: v, cfg: cfg, next: next}
	}
}

type receiver struct {
	v    *Verifier
	cfg  middlewareConfig
	next http.Handler
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Headers first: a request that is not a delivery is turned away before
	// its body is read.
	d, err := parseHeaders(r.Header)
	if err != nil {
		rc.fail(w, r, http.StatusBadRequest, err)
		return
	}
	body, err := readBody(w, r, rc.cfg.maxBodyBytes)
	if err != nil {
		status := http.StatusBadRequest
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		rc.fail(w, r, status, fmt.Errorf("webhook: reading body: %w", err))
		return
	}
	if err := rc.v.verify(d, body); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, ErrNoValidSignature) || errors.Is(err, ErrTimestampOutOfTolerance) {
			status = http.StatusUnauthorized
		}
		rc.fail(w, r, status, err)
		return
	}
	job, err := decodeJob(body)
	if err != nil {
		rc.fail(w, r, http.StatusBadRequest, err)
		return
	}

	ev := &Event{ID: d.id, Timestamp: time.Unix(d.seconds, 0), Job: job}
	r = r.WithContext(context.WithValue(r.Context(), eventContextKey{}, ev))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }

	if rc.cfg.store == nil {
		rc.next.ServeHTTP(w, r)
		return
	}
	rc.serveOnce(w, r, d.id)
}

// serveOnce runs the handler under the idempotency store's claim on id.
func (rc *receiver) serveOnce(w http.ResponseWriter, r *http.Request, id string) {
	ctx := r.Context()
	claim, err := rc.cfg.store.Begin(ctx, id)
	if err == nil && claim != ClaimAcquired && claim != ClaimInProgress && claim != ClaimDone {
		err = fmt.Errorf("Begin returned unknown claim %d", int(claim))
	}
	if err != nil {
		rc.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: %w", ErrIdempotencyStore, err))
		return
	}
	switch claim {
	case ClaimDone:
		// Already handled: acknowledge so that the service stops retrying.
		w.WriteHeader(http.StatusOK)
		return
	case ClaimInProgress:
		rc.fail(w, r, http.StatusConflict, ErrDeliveryInProgress)
		return
	}

	// The store calls use a context that outlives the request: the claim
	// must be settled even when the client has gone.
	storeCtx := context.WithoutCancel(ctx)
	rec := &statusRecorder{ResponseWriter: w}
	settled := false
	defer func() {
		if !settled { // the handler panicked or called runtime.Goexit
			rc.storeError(r, rc.cfg.store.Abort(storeCtx, id))
		}
	}()
	rc.next.ServeHTTP(rec, r)
	settled = true
	// A handler that wrote nothing gets net/http's implicit 200.
	if rec.status == 0 || (rec.status >= 200 && rec.status < 300) {
		rc.storeError(r, rc.cfg.store.Complete(storeCtx, id))
	} else {
		rc.storeError(r, rc.cfg.store.Abort(storeCtx, id))
	}
}

func (rc *receiver) storeError(r *http.Request, err error) {
	if err != nil && rc.cfg.onError != nil {
		rc.cfg.onError(r, fmt.Errorf("%w: %w", ErrIdempotencyStore, err))
	}
}

// fail reports err to the hook and answers with the bare status text, so
// the sender (possibly an attacker) learns nothing beyond the status.
func (rc *receiver) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if rc.cfg.onError != nil {
		rc.cfg.onError(r, err)
	}
	http.Error(w, http.StatusText(status), status)
}

// bodyBufferStart bounds the buffer readBody reserves before any byte has
// arrived. The request is not authenticated until the whole body has been
// read and verified, so a declared Content-Length is only a claim: it may
// decide the final size of the buffer, never how much is reserved ahead of
// the bytes actually received.
const bodyBufferStart = 4 << 10

// readBody reads the whole body, failing with *http.MaxBytesError beyond
// limit. A declared Content-Length over the limit fails before reading.
//
// The buffer starts at min(Content-Length, bodyBufferStart) bytes and at
// most doubles each time it fills, so what it holds is never more than
// twice the bytes received plus bodyBufferStart: a sender that claims a
// large body and then stalls reserves almost nothing. An honest
// Content-Length still caps the last growth, so that reading io.EOF needs
// no extra room.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	if r.Body == nil {
		return nil, nil
	}
	declared := r.ContentLength // -1: unknown
	size := 512
	if declared > 0 {
		size = int(min(declared, bodyBufferStart)) + 1 // +1 so that reading io.EOF needs no growth
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = growBody(b, declared)
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// growBody returns b, which is full, copied into a buffer of twice its
// capacity, or of declared+1 bytes when the declared length is still ahead
// of what was read and needs less.
func growBody(b []byte, declared int64) []byte {
	next := 2 * cap(b)
	if declared >= int64(len(b)) && declared < int64(next)-1 {
		next = int(declared) + 1
	}
	nb := make([]byte, len(b), next)
	copy(nb, b)
	return nb
}

// statusRecorder remembers the status the wrapped handler answered with.
// Unwrap lets http.ResponseController reach the underlying writer's
// optional interfaces (hijacking, deadlines, full duplex).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	// Informational (1xx) responses precede the final one.
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// Flush keeps the recorder an http.Flusher for handlers that assert it.
func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
