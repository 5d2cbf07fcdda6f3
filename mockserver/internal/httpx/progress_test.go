package httpx

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyProgressTimeout: a body that stops arriving is cut off (the
// handler's read fails with a timeout) although the server has no
// ReadTimeout; a steady body is read whole.
func TestBodyProgressTimeout(t *testing.T) {
	t.Parallel()
	results := make(chan error, 2)
	srv := httptest.NewServer(BodyProgressTimeout(50*time.Millisecond, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.Copy(io.Discard, r.Body)
		results <- err
	})))
	defer srv.Close()

	resp, err := http.Post(srv.URL, "application/octet-stream", strings.NewReader(strings.Repeat("x", 1<<20)))
	require.NoError(t, err)
	resp.Body.Close()
	require.NoError(t, <-results)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
	require.NoError(t, err)
	err = <-results
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "%v", err)

	// Disabled, it is the handler itself.
	h := http.NotFoundHandler()
	assert.NotNil(t, BodyProgressTimeout(0, h))
}

// TestBodyProgressTimeoutSparesTheHandler: the deadline watches the body
// only. A request without one, and a request whose body has been read
// whole, keep their context however long the handler then works: a
// read deadline left on the connection would fire in net/http's
// background read and cancel it (a long GET /pfc/{key} failed with 503
// after -body-timeout).
func TestBodyProgressTimeoutSparesTheHandler(t *testing.T) {
	t.Parallel()
	const d = 20 * time.Millisecond
	for _, tc := range []struct {
		name, method string
		body         string
	}{
		{"no body", http.MethodGet, ""},
		{"body read whole", http.MethodPut, strings.Repeat("x", 64<<10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			results := make(chan error, 1)
			srv := httptest.NewServer(BodyProgressTimeout(d, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := io.Copy(io.Discard, r.Body); err != nil {
					results <- err
					return
				}
				// Work for many times the bound; only a cancelled context ends it early.
				select {
				case <-r.Context().Done():
					results <- context.Cause(r.Context())
				case <-time.After(25 * d):
					results <- nil
				}
			})))
			defer srv.Close()
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, srv.URL, body)
			require.NoError(t, err)
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.NoError(t, <-results)
		})
	}
}
