package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// stallAfter answers status with a declared Content-Length of 100, sends
// head of it and then nothing until the client goes away.
func stallAfter(cnt *counter, status int, head string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, head)
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}
}

// guard bounds a test that would otherwise hang on a regression; the call
// under test must end long before, by the transport's own bound.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestStalledErrorBodyEndsTheAttempt: an error answer whose body stops
// after the headers ends each attempt after ResponseHeaderTimeout without
// a byte (the retry drain and the APIError's copy used to wait forever on
// it); the status stands, with what of the body arrived.
func TestStalledErrorBodyEndsTheAttempt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cnt := &counter{}
		url, hc := netServer(t, stallAfter(cnt, http.StatusServiceUnavailable, `{"message":"busy"`))
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, MaxRetries: 2, ResponseHeaderTimeout: 100 * time.Millisecond})
		_, err := c.Do(guard(t), &Request{Path: "status"})
		var ae *apierr.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusServiceUnavailable, ae.StatusCode)
		assert.Equal(t, 3, ae.Attempts)
		assert.Equal(t, `{"message":"busy"`, string(ae.Body))
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, int64(3), cnt.get())
	})
}

// TestStalledJSONBodyIsRetried: a 2xx JSON answer that stops after the
// headers fails its attempt as cut off by the bound, and is retried.
func TestStalledJSONBodyIsRetried(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cnt := &counter{}
		url, hc := netServer(t, stallAfter(cnt, http.StatusOK, `{"status":`))
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, MaxRetries: 1, ResponseHeaderTimeout: 100 * time.Millisecond})
		var out map[string]any
		err := c.DoJSON(guard(t), &Request{Path: "status"}, &out)
		require.ErrorIs(t, err, apierr.ErrTruncatedResponse)
		require.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout)
		assert.ErrorContains(t, err, "response body made no progress for 100ms")
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, int64(2), cnt.get())
	})
}

// TestSlowErrorBodyIsReadWhole: the bound restarts as the body's bytes
// arrive, so a body slower than the bound, that never pauses for it, is
// kept whole.
func TestSlowErrorBodyIsReadWhole(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const body = `{"message":"` + "0123456789012345678901234567890123456789012345678901234567890123456789" + `"}`
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusBadRequest)
			for i := range len(body) { // a byte every 10 ms: about 0.8 s, past the bound
				_, _ = io.WriteString(w, body[i:i+1])
				http.NewResponseController(w).Flush()
				time.Sleep(10 * time.Millisecond)
			}
		})
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, MaxRetries: -1, ResponseHeaderTimeout: 500 * time.Millisecond})
		_, err := c.Do(guard(t), &Request{Path: "x"})
		var ae *apierr.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusBadRequest, ae.StatusCode)
		assert.Equal(t, body, string(ae.Body))
		assert.Equal(t, strings.Repeat("0123456789", 7), ae.Message)
	})
}

// TestBufferLimit: BufferBody holds at most BufferLimit+1 bytes of a
// longer answer, enough to tell it is too long.
func TestBufferLimit(t *testing.T) {
	t.Parallel()
	big, err := json.Marshal(map[string]string{"pad": strings.Repeat("x", 1<<20)})
	require.NoError(t, err)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(big) })
	c := newClient(t, Options{BaseURL: srv.URL})
	resp, err := c.Do(context.Background(), &Request{Path: "x", Endpoint: &Endpoint{Replay: true, Buffer: true, BufferLimit: 1 << 10}})
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Len(t, got, 1<<10+1)
	assert.Equal(t, big[:1<<10+1], got)
}

// TestStalledDownloadEndsTheRead: a body left to the caller that stops
// arriving ends the caller's read after the bound without a byte; what
// arrived before is read.
func TestStalledDownloadEndsTheRead(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		url, hc := netServer(t, stallAfter(&counter{}, http.StatusOK, "0123456789"))
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, ResponseHeaderTimeout: 100 * time.Millisecond})
		resp, err := c.Do(guard(t), &Request{Path: "file"})
		require.NoError(t, err)
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		assert.Equal(t, "0123456789", string(got))
		require.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout)
		assert.ErrorContains(t, err, "response body made no progress for 100ms")
		_, err = resp.Body.Read(make([]byte, 1))
		assert.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout, "and stays ended")
	})
}

// TestSlowReaderOfADownloadIsNotCutOff: only the time a read waits for
// bytes counts; a caller that takes longer than the bound between reads
// (a slow writer) gets the whole body.
func TestSlowReaderOfADownloadIsNotCutOff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const body = "first-second-third"
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, body) })
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, ResponseHeaderTimeout: 50 * time.Millisecond})
		resp, err := c.Do(guard(t), &Request{Path: "file"})
		require.NoError(t, err)
		defer resp.Body.Close()
		var got []byte
		buf := make([]byte, 6)
		for {
			n, err := resp.Body.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			time.Sleep(150 * time.Millisecond) // three bounds between reads
		}
		assert.Equal(t, body, string(got))
	})
}

// liveWatches counts the registrations of c's header watch still running.
func liveWatches(c *Client) int {
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	n := 0
	for _, e := range c.watch.queue {
		if e.state.Load() == watching {
			n++
		}
	}
	return n
}

// TestReadAfterCloseRegistersNothing: a body closed by its caller holds no
// registration of the watch, also when it is read again (which would keep
// the attempt alive for the whole bound).
func TestReadAfterCloseRegistersNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "body") })
	c := newClient(t, Options{BaseURL: srv.URL})
	resp, err := c.Do(context.Background(), &Request{Path: "file"})
	require.NoError(t, err)
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Zero(t, liveWatches(c))
	_, err = resp.Body.Read(make([]byte, 1))
	assert.Error(t, err)
	assert.Zero(t, liveWatches(c), "a read after Close registered again")
}
