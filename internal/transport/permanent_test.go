package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// engineFailed is the hook the correction container client uses: its 503
// processingPFCErrorMessage is final, its other 503s are not.
func engineFailed(e *apierr.APIError) bool { return e.Code == "processingPFCErrorMessage" }

// TestPermanentHook: Request.Permanent sees the parsed error of a
// retryable answer and can make it final; the caller still gets the whole
// error.
func TestPermanentHook(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		hook     func(*apierr.APIError) bool
		attempts int64
		code     string
	}{
		{"final 503 by code", 503, `{"status":503,"code":"processingPFCErrorMessage","message":"processing failed"}`, engineFailed, 1, "processingPFCErrorMessage"},
		{"transient 503 by code", 503, `{"status":503,"code":"temporaryOutputFileMessage","message":"couldn't write image"}`, engineFailed, 3, "temporaryOutputFileMessage"},
		{"proxy 503 without a body", 503, ``, engineFailed, 3, ""},
		{"proxy 503 in HTML", 503, `<html>Service Unavailable</html>`, engineFailed, 3, ""},
		{"no hook", 503, `{"code":"processingPFCErrorMessage"}`, nil, 3, "processingPFCErrorMessage"},
		{"hook on 500", 500, `{"code":"x"}`, func(e *apierr.APIError) bool { return e.StatusCode == 500 }, 1, "x"},
		{"hook never sees a 400", 400, `{"code":"noIdMessage"}`, func(*apierr.APIError) bool { panic("called") }, 1, "noIdMessage"},
		{"large body still parsed", 503, `{"code":"processingPFCErrorMessage","message":"` + strings.Repeat("m", 3000) + `"}`, engineFailed, 1, "processingPFCErrorMessage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				cnt.inc()
				if strings.HasPrefix(tc.body, "{") {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 2})
			_, err := c.Do(context.Background(), &Request{Path: "pfc/k.jpg", Endpoint: &Endpoint{Replay: true, FinalAnswer: tc.hook}})
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.status, ae.StatusCode)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.attempts, cnt.get(), "requests sent")
			assert.EqualValues(t, tc.attempts, ae.Attempts)
			if tc.body != "" {
				want := tc.body
				if len(want) > apierr.MaxBody {
					want = want[:apierr.MaxBody]
				}
				assert.Equal(t, want, string(ae.Body), "the caller's error keeps the body")
			}
		})
	}
}

// TestPermanentHookSeesRedactedError: what the hook gets has passed the
// client's redactor like the caller's error.
func TestPermanentHookSeesRedactedError(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(503)
		_, _ = io.WriteString(w, `{"code":"c","message":"licence s3cr3t-licence rejected"}`)
	})
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 1, Secrets: []string{"s3cr3t-licence"}})
	var seen []string
	_, err := c.Do(context.Background(), &Request{Path: "x", Endpoint: &Endpoint{Replay: true, FinalAnswer: func(e *apierr.APIError) bool {
		seen = append(seen, e.Message+" "+string(e.Body))
		return false
	}}})
	require.Error(t, err)
	require.Len(t, seen, 2)
	for _, s := range seen {
		assert.NotContains(t, s, "s3cr3t")
		assert.Contains(t, s, "REDACTED")
	}
}

// TestPeekAPIErrorKeepsBody: the peeked response body still reads whole,
// beyond the peeked bound, and closing it closes the original.
func TestPeekAPIErrorKeepsBody(t *testing.T) {
	t.Parallel()
	full := `{"code":"processingPFCErrorMessage","pad":"` + strings.Repeat("p", 3*apierr.MaxBody) + `"}`
	orig := &closeRecorder{Reader: strings.NewReader(full)}
	resp := &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Body: orig}
	ae := peekAPIError(resp, "GET", "http://h/x", 1, nil)
	assert.Equal(t, 503, ae.StatusCode)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, full, string(got))
	require.NoError(t, resp.Body.Close())
	assert.True(t, orig.closed)

	// A read failure while peeking is reported to whoever reads the body.
	boom := errors.New("connection reset")
	resp = &http.Response{StatusCode: 503, Body: io.NopCloser(io.MultiReader(strings.NewReader("abc"), &failReader{boom}))}
	_ = peekAPIError(resp, "GET", "http://h/x", 1, nil)
	got, err = io.ReadAll(resp.Body)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, "abc", string(got))

	// No body: nothing to restore.
	resp = &http.Response{StatusCode: 502, Body: http.NoBody}
	assert.Equal(t, 502, peekAPIError(resp, "GET", "http://h/x", 1, nil).StatusCode)
	assert.Equal(t, http.NoBody, resp.Body)
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

type failReader struct{ err error }

func (f *failReader) Read([]byte) (int, error) { return 0, f.err }
