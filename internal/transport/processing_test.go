package transport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// rawServer is a real TCP listener whose handler writes raw bytes after
// reading one request, because net/http servers cannot send a final 1xx.
// Handlers may block on done, which is closed when the test ends.
type rawServer struct {
	URL   string
	conns atomic.Int64
	done  chan struct{}
}

func newRawServer(t *testing.T, handle func(conn net.Conn, done <-chan struct{})) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{URL: "http://" + ln.Addr().String(), done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				handle(conn, s.done)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		close(s.done)
		wg.Wait()
	})
	return s
}

func hold(_ net.Conn, done <-chan struct{}) { <-done }

// TestFinal102 checks the final-102 rule against a real listener: the
// attempt ends as "still processing" (an *APIError with StatusCode 102
// matching apierr.ErrStillProcessing), after one request, whether the
// server then holds the connection or closes it. The safety-net context
// only turns a hang into a failure: the assertion is on the error's kind.
func TestFinal102(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		optIn    bool
		then     func(net.Conn, <-chan struct{})
		wantHold bool
	}{
		{"opted in, server holds", true, hold, true},
		{"opted in, server closes", true, func(net.Conn, <-chan struct{}) {}, false},
		{"not opted in, server closes", false, func(net.Conn, <-chan struct{}) {}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(conn net.Conn, done <-chan struct{}) {
				_, _ = io.WriteString(conn, "HTTP/1.1 102 Processing\r\nX-Request-Id: req-7\r\n\r\n")
				tc.then(conn, done)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := c.Do(ctx, &Request{Path: "DownloadImage/p1", Endpoint: &Endpoint{Replay: true, Final102: tc.optIn}})
			require.Nil(t, resp)
			require.ErrorIs(t, err, apierr.ErrStillProcessing)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusProcessing, ae.StatusCode)
			assert.Equal(t, 1, ae.Attempts, "never retried")
			assert.Equal(t, "req-7", ae.RequestID)
			assert.Equal(t, int64(1), srv.conns.Load())

			err = c.DoJSON(ctx, &Request{Path: "DownloadImage/p1", Endpoint: &Endpoint{Replay: true, Final102: tc.optIn}}, nil)
			assert.ErrorIs(t, err, apierr.ErrStillProcessing, "DoJSON too")
		})
	}
}

// TestInformational1xxThenFinal: a legitimate server may send an
// informational 102 or 103 and then the real answer. Without
// FinalProcessing the real answer is used; with it, a 103 is still skipped.
func TestInformational1xxThenFinal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status string
		optIn  bool
	}{
		{"102 then 200", "102 Processing", false},
		{"103 then 200", "103 Early Hints", false},
		{"103 then 200, opted in", "103 Early Hints", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(conn net.Conn, _ <-chan struct{}) {
				_, _ = io.WriteString(conn, "HTTP/1.1 "+tc.status+"\r\n\r\n"+
					"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
			})
			c := newClient(t, Options{BaseURL: srv.URL})
			resp, err := c.Do(context.Background(), &Request{Path: "x", Endpoint: &Endpoint{Replay: true, Final102: tc.optIn}})
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, "ok", string(b))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}

// TestSilentServerHitsResponseHeaderTimeout: a listener that accepts and
// never answers must not hang a call made without a context deadline.
func TestSilentServerHitsResponseHeaderTimeout(t *testing.T) {
	t.Parallel()
	srv := newRawServer(t, hold)
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 1, ResponseHeaderTimeout: 20 * time.Millisecond})
	resp, err := c.Do(context.Background(), &Request{Path: "pfc/k"})
	require.Nil(t, resp)
	require.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout)
	assert.NotErrorIs(t, err, context.Canceled)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	assert.Equal(t, int64(2), srv.conns.Load(), "retried once like a connection failure")

	// A NoReplay request reached the server: not retried.
	srv2 := newRawServer(t, hold)
	c2 := newClient(t, Options{BaseURL: srv2.URL, MaxRetries: 1, ResponseHeaderTimeout: 20 * time.Millisecond})
	_, err = c2.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage", Endpoint: &Endpoint{}})
	require.ErrorIs(t, err, apierr.ErrResponseHeaderTimeout)
	assert.Equal(t, int64(1), srv2.conns.Load())
}

// TestResponseHeaderTimeoutSparesSlowBodies: the timeout covers the wait
// for headers only; a body that takes longer still streams in full. It
// runs in a synctest bubble (see netServer): the headers, sent at once,
// beat the 10 ms bound however busy the machine.
func TestResponseHeaderTimeoutSparesSlowBodies(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var releaseOnce sync.Once
		url, hc := netServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "4")
			_, _ = io.WriteString(w, "ab")
			http.NewResponseController(w).Flush()
			<-release
			_, _ = io.WriteString(w, "cd")
		})
		// A failed assertion must not leave the handler holding the server's
		// Close (registered earlier, so run after this) for the test timeout.
		t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
		c := newClient(t, Options{BaseURL: url, HTTPClient: hc, ResponseHeaderTimeout: 10 * time.Millisecond})
		resp, err := c.Do(context.Background(), &Request{Path: "file"})
		require.NoError(t, err)
		defer resp.Body.Close()
		head := make([]byte, 2)
		_, err = io.ReadFull(resp.Body, head)
		require.NoError(t, err)
		// Wait well past the timeout, deterministically: the timer is stopped
		// once headers arrived, so nothing can fire during this read.
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
		releaseOnce.Do(func() { close(release) })
		rest, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, "abcd", string(head)+string(rest))
	})
}

func TestResponseHeaderTimeoutDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "http://x.test"})
	require.NoError(t, err)
	assert.Equal(t, DefaultResponseHeaderTimeout, c.headerTimeout)
	c, err = New(Options{BaseURL: "http://x.test", ResponseHeaderTimeout: -1})
	require.NoError(t, err)
	assert.Zero(t, c.headerTimeout, "negative: no bound")
}

// TestHeaderTimeoutDoesNotMutateCallersClient: the bound is a per-attempt
// timer, so the caller's http.Client and Transport stay as they were.
func TestHeaderTimeoutDoesNotMutateCallersClient(t *testing.T) {
	t.Parallel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	_, err := New(Options{BaseURL: "http://x.test", HTTPClient: hc, ResponseHeaderTimeout: time.Second})
	require.NoError(t, err)
	assert.Zero(t, tr.ResponseHeaderTimeout)
	assert.Same(t, tr, hc.Transport)
	assert.Nil(t, hc.CheckRedirect)
}
