package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
)

// recordingHandler counts calls and remembers what the last call saw.
type recordingHandler struct {
	calls  atomic.Int32
	status int // answered status; 0 writes nothing
	mu     sync.Mutex
	body   []byte
	length int64
	job    *hosted.Job
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.calls.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		panic(err)
	}
	job, _ := JobFromContext(r.Context())
	h.mu.Lock()
	h.body, h.length, h.job = body, r.ContentLength, job
	h.mu.Unlock()
	if h.status != 0 {
		w.WriteHeader(h.status)
	}
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestMiddlewareAccepts(t *testing.T) {
	t.Parallel()
	next := &recordingHandler{status: http.StatusNoContent}
	h := Middleware(newTestVerifier(t))(next)
	w := serve(h, signedRequest(testID, testBody))
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.EqualValues(t, 1, next.calls.Load())
	assert.Equal(t, testBody, next.body, "r.Body restored")
	assert.EqualValues(t, len(testBody), next.length)
	require.NotNil(t, next.job)
	assert.Equal(t, "6651f0c2a1b2c3d4e5f60718", next.job.ID)
	assert.Equal(t, hosted.StatusCompleted, next.job.Status)

	// Unknown Content-Length (chunked) works too.
	r := signedRequest(testID, testBody)
	r.ContentLength = -1
	w = serve(h, r)
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, testBody, next.body)
}

func TestMiddlewareRejects(t *testing.T) {
	t.Parallel()
	forged := signedRequest(testID, testBody)
	forged.Header.Set(headerSignature, "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	noID := signedRequest(testID, testBody)
	noID.Header.Del(headerID)
	badTS := signedRequest(testID, testBody)
	badTS.Header.Set(headerTimestamp, "01763800000")
	repeated := signedRequest(testID, testBody)
	repeated.Header.Add(headerSignature, "v1,x")
	stale := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(testBody))
	for k, v := range Sign(testSecret, testID, testTime.Add(-time.Hour), testBody) {
		stale.Header[k] = v
	}
	tampered := signedRequest(testID, testBody)
	tampered.Body = io.NopCloser(strings.NewReader(strings.Replace(string(testBody), "COMPLETED", "FAILED\u0020\u0020\u0020", 1)))
	notJob := signedRequest(testID, []byte(`["not","a","job"]`))

	tests := []struct {
		name   string
		r      *http.Request
		status int
		err    error
	}{
		{"forged signature", forged, http.StatusUnauthorized, ErrNoValidSignature},
		{"tampered body", tampered, http.StatusUnauthorized, ErrNoValidSignature},
		{"stale timestamp", stale, http.StatusUnauthorized, ErrTimestampOutOfTolerance},
		{"missing id", noID, http.StatusBadRequest, ErrInvalidHeader},
		{"bad timestamp", badTS, http.StatusBadRequest, ErrInvalidTimestamp},
		{"repeated signature header", repeated, http.StatusBadRequest, ErrInvalidHeader},
		{"authentic body that is not a job", notJob, http.StatusBadRequest, ErrInvalidPayload},
		{"no headers at all", httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")), http.StatusBadRequest, ErrInvalidHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordingHandler{}
			var hooked []error
			store := &fakeStore{}
			h := Middleware(newTestVerifier(t), WithIdempotency(store),
				WithErrorHook(func(_ *http.Request, err error) { hooked = append(hooked, err) }))(next)
			w := serve(h, tt.r)
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, http.StatusText(tt.status)+"\n", w.Body.String(), "terse body")
			assert.Zero(t, next.calls.Load(), "handler not called")
			assert.Empty(t, store.log(), "store untouched by unverified deliveries")
			require.Len(t, hooked, 1)
			assert.ErrorIs(t, hooked[0], tt.err)
		})
	}
}

func TestMiddlewareBodyLimit(t *testing.T) {
	t.Parallel()
	big := jobBody(strings.Repeat("a", 2000))
	tests := []struct {
		name          string
		limit         int64
		contentLength int64 // -1: unknown
		status        int
	}{
		{"declared length over the limit", 1000, int64(len(big)), http.StatusRequestEntityTooLarge},
		{"unknown length over the limit", 1000, -1, http.StatusRequestEntityTooLarge},
		{"exactly the limit", int64(len(big)), int64(len(big)), http.StatusOK},
		{"exactly the limit, unknown length", int64(len(big)), -1, http.StatusOK},
		{"one byte over, unknown length", int64(len(big)) - 1, -1, http.StatusRequestEntityTooLarge},
		{"zero means the default", 0, -1, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordingHandler{}
			var hooked error
			h := Middleware(newTestVerifier(t), WithMaxBodyBytes(tt.limit),
				WithErrorHook(func(_ *http.Request, err error) { hooked = err }))(next)
			r := signedRequest("evt_big", big)
			r.ContentLength = tt.contentLength
			w := serve(h, r)
			assert.Equal(t, tt.status, w.Code)
			if tt.status == http.StatusOK {
				assert.EqualValues(t, 1, next.calls.Load())
				assert.Equal(t, big, next.body)
				return
			}
			assert.Zero(t, next.calls.Load())
			var tooLarge *http.MaxBytesError
			require.ErrorAs(t, hooked, &tooLarge)
			assert.True(t, strings.HasPrefix(hooked.Error(), "webhook: reading body: "), hooked.Error())
		})
	}
}

func TestMiddlewareDefaultLimit(t *testing.T) {
	t.Parallel()
	next := &recordingHandler{}
	h := Middleware(newTestVerifier(t))(next)
	body := make([]byte, defaultMaxBodyBytes+1)
	r := signedRequest(testID, body)
	r.ContentLength = -1
	assert.Equal(t, http.StatusRequestEntityTooLarge, serve(h, r).Code)
	assert.Zero(t, next.calls.Load())
}

// A read error other than the cap is a 400.
func TestMiddlewareReadError(t *testing.T) {
	t.Parallel()
	var hooked error
	h := Middleware(newTestVerifier(t), WithErrorHook(func(_ *http.Request, err error) { hooked = err }))(&recordingHandler{})
	r := signedRequest(testID, testBody)
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(testBody[:10]), errReader{}))
	assert.Equal(t, http.StatusBadRequest, serve(h, r).Code)
	assert.ErrorIs(t, hooked, errBroken)
}

var errBroken = errors.New("broken pipe")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

// Over a real connection: the 413 path must also work with net/http's own
// ResponseWriter, and the handler's writer must still flush.
func TestMiddlewareOverHTTP(t *testing.T) {
	t.Parallel()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		job, ok := JobFromContext(r.Context())
		if !ok {
			http.Error(w, "no job", http.StatusInternalServerError)
			return
		}
		_, flushes := w.(http.Flusher)
		assert.True(t, flushes)
		_, _ = io.WriteString(w, job.ID)
		assert.NoError(t, http.NewResponseController(w).Flush())
	})
	srv := httptest.NewServer(Middleware(newTestVerifier(t), WithMaxBodyBytes(4096),
		WithIdempotency(NewMemoryStore(MemoryStoreOptions{Now: fixedClock(testTime)})))(next))
	defer srv.Close()

	post := func(body []byte) (int, string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		require.NoError(t, err)
		for k, v := range Sign(testSecret, testID, testTime, body) {
			req.Header[k] = v
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(got)
	}
	status, body := post(testBody)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "6651f0c2a1b2c3d4e5f60718", body)
	status, body = post(testBody)
	assert.Equal(t, http.StatusOK, status, "duplicate acknowledged")
	assert.Empty(t, body)
	status, _ = post(make([]byte, 5000))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
}

func TestMiddlewareNilVerifier(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { Middleware(nil) })
}

func TestJobFromContextAbsent(t *testing.T) {
	t.Parallel()
	job, ok := JobFromContext(context.Background())
	assert.False(t, ok)
	assert.Nil(t, job)
}

func TestIdempotencySuccessAcknowledged(t *testing.T) {
	t.Parallel()
	next := &recordingHandler{status: http.StatusOK}
	h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(next)
	require.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
	w := serve(h, signedRequest(testID, testBody))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.EqualValues(t, 1, next.calls.Load(), "the retry is not handled again")

	// Another id is handled.
	require.Equal(t, http.StatusOK, serve(h, signedRequest("evt_other", jobBody("other"))).Code)
	assert.EqualValues(t, 2, next.calls.Load())
}

func TestIdempotencyFailureRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{0, http.StatusOK, http.StatusAccepted, http.StatusNoContent} {
		t.Run("success "+http.StatusText(status), func(t *testing.T) {
			next := &recordingHandler{status: status}
			h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(next)
			serve(h, signedRequest(testID, testBody))
			serve(h, signedRequest(testID, testBody))
			assert.EqualValues(t, 1, next.calls.Load())
		})
	}
	for _, status := range []int{http.StatusMultipleChoices, http.StatusBadRequest, http.StatusConflict, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		t.Run("failure "+http.StatusText(status), func(t *testing.T) {
			next := &recordingHandler{status: status}
			h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(next)
			assert.Equal(t, status, serve(h, signedRequest(testID, testBody)).Code)
			next.status = http.StatusOK
			assert.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
			assert.EqualValues(t, 2, next.calls.Load(), "the retry is handled")
			serve(h, signedRequest(testID, testBody))
			assert.EqualValues(t, 2, next.calls.Load(), "then acknowledged")
		})
	}
}

func TestIdempotencyInformationalThenSuccess(t *testing.T) {
	t.Parallel()
	calls := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusCreated)
	})
	h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(next)
	// (httptest.ResponseRecorder reports the 103 as its Code, so only the
	// store's verdict is checked: the 201 counted as success.)
	serve(h, signedRequest(testID, testBody))
	serve(h, signedRequest(testID, testBody))
	assert.Equal(t, 1, calls)
}

func TestIdempotencyPanicReleases(t *testing.T) {
	t.Parallel()
	calls := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			panic(http.ErrAbortHandler)
		}
	})
	store := NewMemoryStore(MemoryStoreOptions{})
	h := Middleware(newTestVerifier(t), WithIdempotency(store))(next)
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() { serve(h, signedRequest(testID, testBody)) })
	_, inProgress := store.size()
	assert.Zero(t, inProgress, "claim released")
	assert.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
	assert.Equal(t, 2, calls)
}

func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	var hooked []error
	var mu sync.Mutex
	h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})),
		WithErrorHook(func(_ *http.Request, err error) { mu.Lock(); hooked = append(hooked, err); mu.Unlock() }))(next)

	first := make(chan int)
	go func() { first <- serve(h, signedRequest(testID, testBody)).Code }()
	<-entered
	// While the first delivery is in the handler, duplicates are turned away.
	for i := 0; i < 3; i++ {
		w := serve(h, signedRequest(testID, testBody))
		assert.Equal(t, http.StatusConflict, w.Code)
		assert.Equal(t, "Conflict\n", w.Body.String())
	}
	close(release)
	assert.Equal(t, http.StatusOK, <-first)
	assert.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
	assert.EqualValues(t, 1, calls.Load())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, hooked, 3)
	assert.ErrorIs(t, hooked[0], ErrDeliveryInProgress)
}

// Many identical deliveries at once: exactly one reaches the handler, the
// others get 409 (in progress) or 200 (already done).
func TestIdempotencyConcurrentStorm(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	h := Middleware(newTestVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls.Add(1) }))
	const n = 16
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- serve(h, signedRequest(testID, testBody)).Code
		}()
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		assert.Contains(t, []int{http.StatusOK, http.StatusConflict}, code)
	}
	assert.EqualValues(t, 1, calls.Load())
}

// fakeStore records calls and returns scripted results.
type fakeStore struct {
	mu       sync.Mutex
	calls    []string
	claim    Claim
	beginErr error
	endErr   error
}

func (s *fakeStore) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *fakeStore) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *fakeStore) Begin(ctx context.Context, id string) (Claim, error) {
	s.record("Begin " + id)
	return s.claim, s.beginErr
}

func (s *fakeStore) Complete(ctx context.Context, id string) error {
	s.record("Complete " + id)
	return s.endErr
}

func (s *fakeStore) Abort(ctx context.Context, id string) error {
	s.record("Abort " + id)
	return s.endErr
}

func TestIdempotencyStoreErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("store down")
	tests := []struct {
		name    string
		store   *fakeStore
		handler int
		status  int
		calls   []string
		hookErr error
	}{
		{"Begin fails", &fakeStore{beginErr: boom}, 200, http.StatusInternalServerError, []string{"Begin " + testID}, boom},
		{"Begin returns the zero claim", &fakeStore{}, 200, http.StatusInternalServerError, []string{"Begin " + testID}, ErrIdempotencyStore},
		{"Complete fails", &fakeStore{claim: ClaimAcquired, endErr: boom}, 200, http.StatusOK, []string{"Begin " + testID, "Complete " + testID}, boom},
		{"Abort fails", &fakeStore{claim: ClaimAcquired, endErr: boom}, 500, http.StatusInternalServerError, []string{"Begin " + testID, "Abort " + testID}, boom},
		{"done", &fakeStore{claim: ClaimDone}, 500, http.StatusOK, []string{"Begin " + testID}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordingHandler{status: tt.handler}
			var hooked error
			h := Middleware(newTestVerifier(t), WithIdempotency(tt.store),
				WithErrorHook(func(_ *http.Request, err error) { hooked = err }))(next)
			w := serve(h, signedRequest(testID, testBody))
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.calls, tt.store.log())
			if tt.hookErr == nil {
				assert.NoError(t, hooked)
				return
			}
			assert.ErrorIs(t, hooked, tt.hookErr)
			assert.ErrorIs(t, hooked, ErrIdempotencyStore)
		})
	}
}

// The store is asked with a context that survives the client going away.
func TestIdempotencySettlesAfterCancel(t *testing.T) {
	t.Parallel()
	store := &ctxStore{}
	ctx, cancel := context.WithCancel(context.Background())
	h := Middleware(newTestVerifier(t), WithIdempotency(store))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { cancel() }))
	serve(h, signedRequest(testID, testBody).WithContext(ctx))
	assert.NoError(t, store.completeErr)
	assert.True(t, store.completed)
}

type ctxStore struct {
	completed   bool
	completeErr error
}

func (s *ctxStore) Begin(context.Context, string) (Claim, error) { return ClaimAcquired, nil }
func (s *ctxStore) Complete(ctx context.Context, _ string) error {
	s.completed, s.completeErr = true, ctx.Err()
	return nil
}
func (s *ctxStore) Abort(context.Context, string) error { return nil }
