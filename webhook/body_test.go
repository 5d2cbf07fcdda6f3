package webhook

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

// The body is read before the signature is checked, so its declared
// Content-Length comes from an unauthenticated sender. A huge claim under
// a huge cap must be answered like any other broken delivery: no panic in
// makeslice, no out-of-memory, no buffer sized from the claim.
func TestMiddlewareHugeDeclaredLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limit  int64
		length int64
		body   io.Reader
		status int
		err    error
	}{
		{"2^50 claimed, read fails", 1 << 62, 1 << 50, errReader{}, http.StatusBadRequest, errBroken},
		{"2^50 claimed, body empty", 1 << 62, 1 << 50, bytes.NewReader(nil), http.StatusUnauthorized, ErrNoValidSignature},
		{"MaxInt64 claimed and allowed, read fails", math.MaxInt64, math.MaxInt64, errReader{}, http.StatusBadRequest, errBroken},
		{"MaxInt64 claimed and allowed, body short", math.MaxInt64, math.MaxInt64, bytes.NewReader(testBody[:10]), http.StatusUnauthorized, ErrNoValidSignature},
		// Last: a buffer sized from this claim is not a panic but, on most
		// machines, a fatal out-of-memory error that no recover catches.
		{"2^40 claimed, read fails", 1 << 62, 1 << 40, errReader{}, http.StatusBadRequest, errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hooked error
			next := &recordingHandler{}
			h := Middleware(newTestVerifier(t), WithMaxBodyBytes(tt.limit),
				WithErrorHook(func(_ *http.Request, err error) { hooked = err }))(next)
			r := signedRequest(testID, testBody)
			r.Body = io.NopCloser(tt.body)
			r.ContentLength = tt.length
			var w *httptest.ResponseRecorder
			require.NotPanics(t, func() { w = serve(h, r) })
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, http.StatusText(tt.status)+"\n", w.Body.String())
			assert.ErrorIs(t, hooked, tt.err)
			assert.Zero(t, next.calls.Load())
		})
	}
}

// stallingBody is a request body whose first Read announces itself and
// then blocks until released, like a sender that sent its headers and
// stopped: whatever readBody reserved before reading is live meanwhile.
type stallingBody struct {
	reading chan<- struct{}
	release <-chan struct{}
	once    sync.Once
}

func (b *stallingBody) Read([]byte) (int, error) {
	b.once.Do(func() { b.reading <- struct{}{} })
	<-b.release
	return 0, errBroken
}

// stalledGrowth starts n requests that each claim length bytes and stall,
// and returns how much the live heap grew while all of them were waiting
// for their first byte. The measurement does not depend on timing: every
// request has reached its first Read, so everything it reserved up front is
// allocated, and still referenced, when the sampler takes its last sample.
func stalledGrowth(t *testing.T, h http.Handler, n int, length int64) int64 {
	t.Helper()
	reading := make(chan struct{})
	release := make(chan struct{})
	codes := make(chan int, n)
	var wg sync.WaitGroup
	sampler := streamtest.Start()
	for range n {
		r := signedRequest(testID, testBody)
		r.Body = io.NopCloser(&stallingBody{reading: reading, release: release})
		r.ContentLength = length
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- serve(h, r).Code
		}()
	}
	for range n {
		<-reading
	}
	growth := sampler.Stop()
	close(release)
	wg.Wait()
	close(codes)
	for code := range codes {
		assert.Equal(t, http.StatusBadRequest, code)
	}
	return growth
}

// A sender that claims a large body and sends nothing must not make the
// receiver reserve memory for it.
func TestMiddlewareStalledBodyReservesLittle(t *testing.T) {
	// Not parallel: it measures the heap.
	t.Run("one request claiming 64 MiB", func(t *testing.T) {
		h := Middleware(newTestVerifier(t), WithMaxBodyBytes(1<<30))(&recordingHandler{})
		growth := stalledGrowth(t, h, 1, 64<<20)
		t.Logf("heap growth: %.2f MiB", float64(growth)/(1<<20))
		assert.Less(t, growth, int64(4<<20), "a claimed length must not be reserved ahead of the bytes")
	})
	t.Run("64 requests claiming the default cap", func(t *testing.T) {
		const n = 64
		h := Middleware(newTestVerifier(t))(&recordingHandler{})
		growth := stalledGrowth(t, h, n, defaultMaxBodyBytes)
		t.Logf("heap growth: %.2f MiB", float64(growth)/(1<<20))
		assert.Less(t, growth, int64(n*defaultMaxBodyBytes/4),
			"each stalled request must reserve a small fraction of its claim")
	})
}

// readBody returns the body intact whatever the declared length says,
// and its buffer stays within twice what was read (or the small start).
func TestReadBodyGrowsWithTheBytes(t *testing.T) {
	t.Parallel()
	for _, actual := range []int{0, 1, 511, 512, 513, bodyBufferStart, bodyBufferStart + 1, 10_000, 100 << 10} {
		body := bytes.Repeat([]byte("0123456789abcdef"), actual/16+1)[:actual]
		for _, declared := range []int64{-1, 0, int64(actual) / 2, int64(actual), int64(actual) + 1, 2 * int64(actual), 1 << 40} {
			for _, oneByte := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d bytes, %d declared, one byte reads %v", actual, declared, oneByte), func(t *testing.T) {
					var rd io.Reader = bytes.NewReader(body)
					if oneByte {
						rd = iotest.OneByteReader(rd)
					}
					r := httptest.NewRequest(http.MethodPost, "/", nil)
					r.Body = io.NopCloser(rd)
					r.ContentLength = declared
					got, err := readBody(httptest.NewRecorder(), r, 1<<62)
					require.NoError(t, err)
					assert.Equal(t, body, got)
					assert.LessOrEqual(t, cap(got), max(bodyBufferStart+1, 2*len(got)))
					if declared == int64(actual) && actual > 0 {
						assert.Equal(t, actual+1, cap(got), "an honest length is the final size")
					}
				})
			}
		}
	}
}
