package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// okJSON is the complete answer of truncatingServer.
const okJSON = `{"status":"COMPLETED","id":"job-1","padding":"0123456789abcdef"}`

// truncatingServer answers its first n requests with okJSON cut in half and
// the rest with okJSON whole. chunked cuts a chunked answer (the final chunk
// never comes) instead of one with a full Content-Length; both close the
// connection after the half, as the mock's truncate fault does.
func truncatingServer(t *testing.T, n int64, chunked bool, cnt *counter) string {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if cnt.inc() > n {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, okJSON)
			return
		}
		half := okJSON[:len(okJSON)/2]
		if !chunked {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(okJSON)))
			_, _ = io.WriteString(w, half) // short of Content-Length: net/http closes the connection
			return
		}
		_, _ = io.Copy(io.Discard, r.Body) // an unread body would make the close a reset
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(half)), 16) + "\r\n" + half + "\r\n")
		_ = buf.Flush()
	})
	return srv.URL
}

// TestDoJSONRetriesTruncatedAnswer: a 2xx JSON answer cut off mid-body is
// retried like a connection error, within the same attempt budget
// (MaxRetries counts every request sent); past the budget, or for a
// NoReplay request, the call fails with an error matching
// ErrTruncatedResponse and io.ErrUnexpectedEOF.
func TestDoJSONRetriesTruncatedAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		truncated  int64 // answers cut off before a whole one
		maxRetries int
		noReplay   bool
		wantSent   int64
		wantOK     bool
	}{
		{name: "one within budget", truncated: 1, maxRetries: 2, wantSent: 2, wantOK: true},
		{name: "all retries used", truncated: 2, maxRetries: 2, wantSent: 3, wantOK: true},
		{name: "beyond budget", truncated: 3, maxRetries: 2, wantSent: 3},
		{name: "retries off", truncated: 1, maxRetries: -1, wantSent: 1},
		{name: "NoReplay", truncated: 1, maxRetries: 3, noReplay: true, wantSent: 1},
	}
	for _, tc := range cases {
		for _, chunked := range []bool{false, true} {
			t.Run(tc.name+"/chunked="+strconv.FormatBool(chunked), func(t *testing.T) {
				t.Parallel()
				cnt := &counter{}
				base := truncatingServer(t, tc.truncated, chunked, cnt)
				c := newClient(t, Options{BaseURL: base, MaxRetries: tc.maxRetries, Secrets: []string{"sekrit-key"}})
				req := &Request{Path: "status/sekrit-key"}
				if tc.noReplay {
					req = &Request{Method: http.MethodPost, Path: "SubmitImage/sekrit-key",
						Body: BytesBody([]byte("x"), "text/plain"), Endpoint: &Endpoint{}}
				}
				var out struct{ Status, ID string }
				err := c.DoJSON(context.Background(), req, &out)
				assert.Equal(t, tc.wantSent, cnt.get(), "requests sent")
				if tc.wantOK {
					require.NoError(t, err)
					assert.Equal(t, "COMPLETED", out.Status)
					assert.Equal(t, "job-1", out.ID)
					return
				}
				require.Error(t, err)
				assert.ErrorIs(t, err, apierr.ErrTruncatedResponse)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
				assert.Contains(t, err.Error(), "response body cut off after")
				assertNoSecrets(t, err.Error(), "sekrit-key")
				if tc.wantSent > 1 {
					assert.Contains(t, err.Error(), "("+strconv.FormatInt(tc.wantSent, 10)+" attempts)")
				}
				if tc.noReplay {
					assert.Contains(t, err.Error(), "its answer was lost")
				} else {
					assert.NotContains(t, err.Error(), "answer was lost")
				}
			})
		}
	}
}

// TestDoJSONTruncatedNotRetriedPastDeadline: the deadline rule applies: a
// wait that would pass the context deadline is not made, and the truncated
// answer's error comes back at once, not a bare deadline error.
func TestDoJSONTruncatedNotRetriedPastDeadline(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	base := truncatingServer(t, 1, false, cnt)
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: base, MinRetryWait: 2 * time.Hour, MaxRetryWait: 2 * time.Hour,
		Logger: slogLogger(logs)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	err := c.DoJSON(ctx, &Request{Path: "status"}, &struct{}{})
	require.ErrorIs(t, err, apierr.ErrTruncatedResponse)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.NoError(t, ctx.Err())
	assert.Equal(t, int64(1), cnt.get())
	assert.Len(t, logs.find("pfc: not retrying, the wait would pass the context deadline"), 1)
	assert.Empty(t, logs.find("pfc: retrying request"))
}

// TestDoJSONTruncatedRetryLogged: the retry of a truncated answer is logged
// as any retry, with the redacted error.
func TestDoJSONTruncatedRetryLogged(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	base := truncatingServer(t, 1, false, cnt)
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: base, Logger: slogLogger(logs), Secrets: []string{"sekrit-key"}})
	require.NoError(t, c.DoJSON(context.Background(), &Request{Path: "status/sekrit-key"}, &struct{}{}))
	recs := logs.find("pfc: retrying request")
	require.Len(t, recs, 1)
	assert.Contains(t, recs[0]["error"].String(), "response body cut off after")
	assertNoSecrets(t, logs.String(), "sekrit-key")
}

// TestDoJSONTruncatedNotRetriedOnceCanceled: a body read interrupted by the
// caller's cancellation is not retried, and the error is the cancellation.
func TestDoJSONTruncatedNotRetriedOnceCanceled(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		w.Header().Set("Content-Length", strconv.Itoa(len(okJSON)))
		_, _ = io.WriteString(w, okJSON[:10])
		_ = http.NewResponseController(w).Flush()
		cancel() // the client is reading (or about to read) the body
		<-r.Context().Done()
	})
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
	err := c.DoJSON(ctx, &Request{Path: "status"}, &struct{}{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(1), cnt.get())
}

// TestDoJSONCompleteInvalidJSONNotRetried: a complete body that is not JSON
// is a decoding error, not a truncation: it is not retried.
func TestDoJSONCompleteInvalidJSONNotRetried(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		_, _ = io.WriteString(w, `{"status":`)
	})
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
	err := c.DoJSON(context.Background(), &Request{Path: "status"}, &struct{}{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decoding JSON response")
	assert.NotErrorIs(t, err, apierr.ErrTruncatedResponse)
	assert.Equal(t, int64(1), cnt.get())
}

// TestDoTruncatedBodyIsTheCallers: Do returns the response unread; a body
// cut off later surfaces to the caller's read (apierr.ErrTruncatedResponse,
// io.ErrUnexpectedEOF) and nothing is retried.
func TestDoTruncatedBodyIsTheCallers(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	base := truncatingServer(t, 1, false, cnt)
	c := newClient(t, Options{BaseURL: base, MaxRetries: 3})
	resp, err := c.Do(context.Background(), &Request{Path: "file"})
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, bufio.NewReader(resp.Body))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.ErrorIs(t, err, apierr.ErrTruncatedResponse)
	assert.Equal(t, int64(1), cnt.get())
}

// cuttingServer answers every request with okJSON cut in half, by a
// Content-Length or chunked (no final chunk), then, once cut is closed
// (the client has the headers), closes the connection, with a reset
// (SO_LINGER 0) when reset is set.
func cuttingServer(t *testing.T, chunked, reset bool, cut <-chan struct{}) string {
	t.Helper()
	done := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		half := okJSON[:len(okJSON)/2]
		head := "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(okJSON)) + "\r\n\r\n" + half
		if chunked {
			head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(half)), 16) + "\r\n" + half + "\r\n"
		}
		_, _ = buf.WriteString(head)
		_ = buf.Flush()
		select {
		case <-cut:
		case <-done:
		}
		if tc, ok := conn.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
	})
	t.Cleanup(func() { close(done) }) // runs before the server's Close
	return srv.URL
}

// TestDoBodyCutOffIsTruncated: a body left to the caller (a download) that
// the server's close or reset cuts before its Content-Length or final
// chunk fails the caller's read with an error matching
// apierr.ErrTruncatedResponse that keeps the read error, with the header
// bound or without (a reset matched only syscall.ECONNRESET, a close only
// io.ErrUnexpectedEOF).
func TestDoBodyCutOffIsTruncated(t *testing.T) {
	t.Parallel()
	for _, chunked := range []bool{false, true} {
		for _, reset := range []bool{false, true} {
			for _, bound := range []time.Duration{0, -1} {
				t.Run(fmt.Sprintf("chunked=%t/reset=%t/bound=%s", chunked, reset, bound), func(t *testing.T) {
					t.Parallel()
					cut := make(chan struct{})
					c := newClient(t, Options{BaseURL: cuttingServer(t, chunked, reset, cut), ResponseHeaderTimeout: bound})
					resp, err := c.Do(context.Background(), &Request{Path: "file"})
					require.NoError(t, err)
					defer resp.Body.Close()
					close(cut)
					_, err = io.Copy(io.Discard, resp.Body)
					require.ErrorIs(t, err, apierr.ErrTruncatedResponse)
					if reset {
						assert.ErrorIs(t, err, syscall.ECONNRESET)
					} else {
						assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
					}
					assert.Contains(t, err.Error(), "response body cut off after")
				})
			}
		}
	}
}

// TestDoBodyReadCanceledNotTruncated: a download the caller's cancellation
// interrupts is not reported as cut off by the server.
func TestDoBodyReadCanceledNotTruncated(t *testing.T) {
	t.Parallel()
	cut := make(chan struct{})
	defer close(cut)
	c := newClient(t, Options{BaseURL: cuttingServer(t, false, false, cut)})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.Do(ctx, &Request{Path: "file"})
	require.NoError(t, err)
	defer resp.Body.Close()
	cancel()
	_, err = io.Copy(io.Discard, resp.Body)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, apierr.ErrTruncatedResponse)
}

// TestDoBufferBodyRetriesTruncatedAnswer: Do with BufferBody reads the 2xx
// answer inside the attempt, so a cut body is retried as in DoJSON and the
// caller gets the whole body.
func TestDoBufferBodyRetriesTruncatedAnswer(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	base := truncatingServer(t, 1, false, cnt)
	c := newClient(t, Options{BaseURL: base, MaxRetries: 1})
	resp, err := c.Do(context.Background(), &Request{Path: "status", Endpoint: &Endpoint{Replay: true, Buffer: true}})
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, okJSON, string(b))
	assert.Equal(t, int64(2), cnt.get())
}

// TestDoJSONRetriesStalledBodyRead: a body read that ends with the
// per-attempt Timeout of the caller's http.Client (the server sent the
// headers and a few bytes, then nothing) is retried; the first attempt's
// server never completes, so the outcome does not depend on timing.
func TestDoJSONRetriesStalledBodyRead(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cnt := &counter{}
		release := make(chan struct{})
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) {
			if cnt.inc() == 1 {
				w.Header().Set("Content-Length", strconv.Itoa(len(okJSON)))
				_, _ = io.WriteString(w, okJSON[:5])
				_ = http.NewResponseController(w).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			_, _ = io.WriteString(w, okJSON)
		})
		t.Cleanup(func() { close(release) })
		c := newClient(t, Options{BaseURL: url, MaxRetries: 2, HTTPClient: &http.Client{Transport: hc.Transport, Timeout: 200 * time.Millisecond}})
		var out struct{ Status string }
		require.NoError(t, c.DoJSON(context.Background(), &Request{Path: "x"}, &out))
		assert.Equal(t, "COMPLETED", out.Status)
		assert.Equal(t, int64(2), cnt.get())
	})
}

// TestDoJSONRetriesResetDuringBody: a connection reset while the body is
// read is retried like a cut-off body.
func TestDoJSONRetriesResetDuringBody(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if cnt.inc() > 1 {
			_, _ = io.WriteString(w, okJSON)
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(okJSON)) + "\r\n\r\n" + okJSON[:10])
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with a reset
		}
		_ = conn.Close()
	})
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 2})
	var out struct{ Status string }
	require.NoError(t, c.DoJSON(context.Background(), &Request{Path: "x"}, &out))
	assert.Equal(t, "COMPLETED", out.Status)
	assert.Equal(t, int64(2), cnt.get())
}
