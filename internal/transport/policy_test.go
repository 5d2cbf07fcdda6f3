package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// TestNoReplayByStatus: a NoReplay request that got an answer reached the
// server, so no status is retried, the retryable ones included, except 429:
// a rate limiter refused the request without acting on it.
func TestNoReplayByStatus(t *testing.T) {
	t.Parallel()
	t.Run("429", func(t *testing.T) {
		t.Parallel()
		cnt := &counter{}
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			if cnt.inc() == 1 {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.WriteHeader(http.StatusCreated)
		})
		c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
		resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
			Body: BytesBody([]byte("x"), "text/plain"), Endpoint: &Endpoint{}})
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Equal(t, int64(2), cnt.get(), "requests sent")
	})
	for _, status := range []int{408, 500, 502, 503, 504, 400, 404, 422} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				cnt.inc()
				w.WriteHeader(status)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
			_, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
				Body: BytesBody([]byte("x"), "text/plain"), Endpoint: &Endpoint{}})
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, status, ae.StatusCode)
			assert.Equal(t, int64(1), cnt.get(), "requests sent")
			assert.Equal(t, 1, ae.Attempts)
		})
	}
}

// TestNoReplayAfterConnecting: a connection that dies after the request was
// written is not retried for a NoReplay request (the server may have acted
// on it), and is retried for an ordinary one.
func TestNoReplayAfterConnecting(t *testing.T) {
	t.Parallel()
	for _, noReplay := range []bool{true, false} {
		t.Run(strconv.FormatBool(noReplay), func(t *testing.T) {
			t.Parallel()
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				cnt.inc()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close()
				}
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 2})
			_, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
				Body: BytesBody([]byte("x"), "text/plain"), Endpoint: &Endpoint{Replay: !noReplay}})
			require.Error(t, err)
			want := int64(3)
			if noReplay {
				want = 1
			}
			assert.Equal(t, want, cnt.get(), "requests that reached the server")
		})
	}
}

// TestNoReplayRetriesWhatNeverLeft: connection refused proves the request
// never left, so even a NoReplay request is retried.
func TestNoReplayRetriesWhatNeverLeft(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	rec := &logRecorder{}
	c := newClient(t, Options{BaseURL: "http://" + addr, MaxRetries: 2, Logger: slogLogger(rec)})
	_, err = c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
		Body: BytesBody([]byte("x"), "text/plain"), Endpoint: &Endpoint{}})
	require.Error(t, err)
	assert.Len(t, rec.find("pfc: retrying request"), 2, "both retries made")
	assert.True(t, neverSent(err))
}

func TestNeverSent(t *testing.T) {
	t.Parallel()
	assert.True(t, neverSent(&net.OpError{Op: "dial", Err: errors.New("refused")}))
	assert.True(t, neverSent(&notSentError{err: errors.New("x")}))
	assert.True(t, neverSent(&net.DNSError{Err: "no such host", Name: "x.invalid"}))
	assert.False(t, neverSent(&net.OpError{Op: "read", Err: errors.New("reset")}))
	assert.False(t, neverSent(errors.New("unexpected EOF")))
}

// TestPermanentStatus: statuses the endpoint documents as final are not
// retried; the others keep the default policy.
func TestPermanentStatus(t *testing.T) {
	t.Parallel()
	permanent := func(s int) bool { return s == http.StatusInternalServerError }
	cases := []struct {
		status int
		sent   int64
	}{{500, 1}, {503, 3}, {429, 3}, {404, 1}}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				cnt.inc()
				w.WriteHeader(tc.status)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 2})
			_, err := c.Do(context.Background(), &Request{Path: "DownloadImage/x", Endpoint: &Endpoint{Replay: true, Final: permanent}})
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.status, ae.StatusCode)
			assert.Equal(t, tc.sent, cnt.get(), "requests sent")
		})
	}
}

// TestRetriedAfterLanding: the call reports whether a retry followed an
// attempt that may have been processed, so that a DELETE's 404 on a retry
// is read as its own first attempt's doing only then.
func TestRetriedAfterLanding(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		first func(w http.ResponseWriter)
		want  bool
	}{
		"503 refused":     {func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }, false},
		"429 refused":     {func(w http.ResponseWriter) { w.WriteHeader(http.StatusTooManyRequests) }, false},
		"408 refused":     {func(w http.ResponseWriter) { w.WriteHeader(http.StatusRequestTimeout) }, false},
		"500 may be done": {func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) }, true},
		"502 may be done": {func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, true},
		"answer lost": {func(w http.ResponseWriter) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if cnt.inc() == 1 {
					tc.first(w)
					return
				}
				w.WriteHeader(http.StatusNotFound)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 3})
			_, out, err := c.Send(context.Background(), &Request{Method: http.MethodDelete, Path: "RemoveImage/x"}, SendOptions{})
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusNotFound, ae.StatusCode)
			assert.Equal(t, 2, ae.Attempts)
			assert.Equal(t, tc.want, out.RetriedAfterLanding)
			assert.Equal(t, 2, out.Attempts)
		})
	}
	t.Run("never sent", func(t *testing.T) {
		t.Parallel()
		dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
		assert.False(t, mayHaveLanded(nil, dial))
		assert.True(t, mayHaveLanded(nil, errors.New("connection reset by peer")))
	})
}
