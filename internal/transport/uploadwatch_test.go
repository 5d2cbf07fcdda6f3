package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// trickleReader is an io.ReaderAt that hands out at most a KiB per call,
// after a pause: an upload that keeps making progress, slowly.
type trickleReader struct {
	pause time.Duration
	calls atomic.Int64
}

func (r *trickleReader) ReadAt(p []byte, off int64) (int, error) {
	r.calls.Add(1)
	time.Sleep(r.pause)
	n := min(len(p), 1<<10)
	clear(p[:n])
	return n, nil
}

// TestResponseHeaderTimeoutSparesSlowUploads: the bound starts once the
// request is sent, so an upload that lasts longer than it, but never pauses
// for that long, succeeds at the first attempt.
func TestResponseHeaderTimeoutSparesSlowUploads(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// A KiB every 10 ms: about 1 s, twice the bound, and large enough to be
		// watched (smallBody).
		const size = 100 << 10
		cnt := &counter{}
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) {
			cnt.inc()
			n, err := io.Copy(io.Discard, r.Body)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_, _ = io.WriteString(w, strconv.FormatInt(n, 10))
		})
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, MaxRetries: 2, ResponseHeaderTimeout: 500 * time.Millisecond})
		src := &trickleReader{pause: 10 * time.Millisecond}
		resp, err := c.Do(context.Background(), &Request{Method: http.MethodPut, Path: "upload",
			Body: ReaderAtBody(src, size, "application/octet-stream")})
		require.NoError(t, err)
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(size), string(got))
		assert.Equal(t, int64(1), cnt.get(), "one attempt")
		assert.GreaterOrEqual(t, src.calls.Load(), int64(size>>10))
	})
}

// zeros is an io.ReaderAt of zero bytes.
type zeros struct{}

func (zeros) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	return len(p), nil
}

// TestStalledUploadHitsResponseHeaderTimeout: an upload that makes no
// progress for the whole bound (the server stopped reading, the socket
// buffers are full) ends with an error that says so, rather than hanging
// a call made without a deadline.
func TestStalledUploadHitsResponseHeaderTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) {
			// Read nothing: the client's writes block once the buffers fill.
			// (The server notices no disconnect while the body is unread.) On the
			// in-memory network nothing is buffered: the first write blocks.
			<-release
		})
		t.Cleanup(func() { close(release) }) // runs before the server's Close
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, MaxRetries: -1, ResponseHeaderTimeout: 50 * time.Millisecond})
		// Far more than the loopback socket buffers hold.
		body := ReaderAtBody(zeros{}, 1<<30, "application/octet-stream")
		resp, err := c.Do(context.Background(), &Request{Method: http.MethodPut, Path: "upload", Body: body})
		require.Nil(t, resp)
		require.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout)
		assert.ErrorContains(t, err, "request body made no progress for 50ms")
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
	})
}
