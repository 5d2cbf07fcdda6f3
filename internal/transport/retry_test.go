package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
)

func TestRetryByStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status int
		retry  bool
	}{
		{408, true}, {429, true}, {500, true}, {502, true}, {503, true}, {504, true}, {505, true}, {599, true},
		{501, false}, {400, false}, {401, false}, {403, false}, {404, false}, {409, false}, {413, false}, {422, false},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				cnt.inc()
				w.WriteHeader(tc.status)
			})
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetries: 2})
			resp, err := c.Do(context.Background(), &Request{Path: "x"})
			require.Nil(t, resp)
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.status, ae.StatusCode)
			want := 1
			if tc.retry {
				want = 3
			}
			assert.Equal(t, int64(want), cnt.get(), "requests sent")
			assert.Equal(t, want, ae.Attempts)
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch cnt.inc() {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			_, _ = io.WriteString(w, "done")
		}
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	resp, err := c.Do(context.Background(), &Request{Path: "x"})
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "done", string(b))
	assert.Equal(t, int64(3), cnt.get())
}

func TestLastResponseSurvivesExhaustion(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := cnt.inc()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", fmt.Sprintf("req-%d", n))
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, `{"message":"overloaded (%d)","code":"E503"}`, n)
	})
	c := newClient(t, Options{BaseURL: srv.URL + "/v2", MaxRetries: 3})
	_, err := c.Do(context.Background(), &Request{Path: "pfc", Query: url.Values{"fileKey": {"k"}}})
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, apierr.ErrServer)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, "overloaded (4)", ae.Message, "the last response, not the first")
	assert.Equal(t, "E503", ae.Code)
	assert.Equal(t, "req-4", ae.RequestID)
	assert.Equal(t, 4, ae.Attempts)
	assert.Equal(t, "GET", ae.Method)
	assert.Equal(t, srv.URL+"/v2/pfc?fileKey=k", ae.URL)
	assert.Equal(t, `{"message":"overloaded (4)","code":"E503"}`, string(ae.Body))
	assert.Equal(t, "pfc: GET "+srv.URL+"/v2/pfc?fileKey=k: 503 Service Unavailable: overloaded (4) (code E503, request id req-4, 4 attempts)", err.Error())
	assert.Equal(t, int64(4), cnt.get())
}

// hangUp closes the connection without answering, a connection-level error.
func hangUp(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if !assert.NoError(t, err) {
		return
	}
	_ = conn.Close()
}

func TestConnectionErrorsRetriedAndRedacted(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		hangUp(t, w)
	})
	logs := &logRecorder{}
	c := newClient(t, Options{
		BaseURL: srv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: "k3y-SECRET",
		Secrets: []string{"lic/KEY 9"}, MaxRetries: 2, Logger: slogLogger(logs),
	})
	_, err := c.Do(context.Background(), &Request{Path: "Authorize/" + PathJoin("lic/KEY 9"), Query: url.Values{"k": {"k3y-SECRET"}}})
	require.Error(t, err)
	assert.Equal(t, int64(3), cnt.get())

	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, srv.URL+"/v2/Authorize/REDACTED?k=REDACTED", ue.URL)
	assert.Contains(t, err.Error(), `pfc: Get "`+srv.URL+`/v2/Authorize/REDACTED?k=REDACTED": `)
	assert.Contains(t, err.Error(), "(3 attempts)")
	assertNoSecrets(t, err.Error(), "k3y-SECRET", "lic%2FKEY%209", "lic/KEY 9", "KEY")
	assertNoSecrets(t, logs.String(), "k3y-SECRET", "lic%2FKEY%209", "lic/KEY 9", "KEY")

	retries := logs.find("pfc: retrying request")
	require.Len(t, retries, 2)
	assert.Equal(t, "WARN", retries[0]["level"].String())
	assert.Contains(t, retries[0]["error"].String(), "REDACTED")
	assert.Len(t, logs.find("pfc: sending request"), 3)

	// A pre-signed URL: every query value is hidden, in the error and the logs.
	_, err = c.DoExternal(context.Background(), http.MethodGet, srv.URL+"/obj?X-Amz-Signature=deadbeefcafe&X-Amz-Expires=900", nil, Body{})
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, srv.URL+"/obj?X-Amz-Signature=REDACTED&X-Amz-Expires=REDACTED", ue.URL)
	assertNoSecrets(t, err.Error(), "deadbeefcafe", "Expires=900")
	assertNoSecrets(t, logs.String(), "deadbeefcafe", "Expires=900")
	assert.Equal(t, int64(6), cnt.get())
}

func TestCertificateErrorNotRetried(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake failure is expected
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cnt.inc()
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newClient(t, Options{BaseURL: srv.URL}) // the test CA is not trusted
	_, err := c.Do(context.Background(), &Request{Path: "x"})
	require.Error(t, err)
	var certErr *tls.CertificateVerificationError
	assert.ErrorAs(t, err, &certErr)
	assert.Equal(t, int64(1), cnt.get(), "one connection, no retry")
}

func TestRedirectFailuresNotRetried(t *testing.T) {
	t.Parallel()
	t.Run("unsupported scheme", func(t *testing.T) {
		cnt := &counter{}
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			cnt.inc()
			http.Redirect(w, r, "ftp://files.example.test/x", http.StatusFound)
		})
		c := newClient(t, Options{BaseURL: srv.URL})
		_, err := c.Do(context.Background(), &Request{Path: "x"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "unsupported protocol scheme")
		assert.Equal(t, int64(1), cnt.get())
	})
	t.Run("too many redirects", func(t *testing.T) {
		cnt := &counter{}
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", cnt.inc()), http.StatusFound)
		})
		c := newClient(t, Options{BaseURL: srv.URL})
		_, err := c.Do(context.Background(), &Request{Path: "x"})
		require.Error(t, err)
		assert.ErrorIs(t, err, errTooManyRedirects)
		assert.Contains(t, err.Error(), "stopped after 10 redirects")
		assert.Equal(t, int64(10), cnt.get(), "one attempt of 10 hops")
	})
	t.Run("caller's CheckRedirect refuses", func(t *testing.T) {
		cnt := &counter{}
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			cnt.inc()
			http.Redirect(w, r, "/next", http.StatusFound)
		})
		refuse := errors.New("no redirects please")
		c := newClient(t, Options{BaseURL: srv.URL, HTTPClient: &http.Client{
			CheckRedirect: func(*http.Request, []*http.Request) error { return refuse },
		}})
		_, err := c.Do(context.Background(), &Request{Path: "x"})
		assert.ErrorIs(t, err, refuse)
		assert.Equal(t, int64(1), cnt.get())
	})
}

func TestRetryAfterHonouredAndCapped(t *testing.T) {
	t.Parallel()
	for name, header := range map[string]string{
		"seconds":   "3600",
		"HTTP date": time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if cnt.inc() == 1 {
					w.Header().Set("Retry-After", header)
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			logs := &logRecorder{}
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetryAfter: 3 * time.Millisecond, Logger: slogLogger(logs)})
			resp, err := c.Do(context.Background(), &Request{Path: "x"})
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, int64(2), cnt.get())
			retries := logs.find("pfc: retrying request")
			require.Len(t, retries, 1)
			assert.Equal(t, 3*time.Millisecond, retries[0]["wait"].Duration(), "Retry-After capped at MaxRetryAfter")
			assert.True(t, retries[0]["retry_after"].Bool())
			assert.Equal(t, int64(429), retries[0]["status"].Int64())
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 0 ", 0, true},
		{"-5", 0, false},
		{"", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Friday, 02-Jan-26 03:05:05 GMT", time.Minute, true}, // RFC 850
		{"99999999999999999999", 0, false},                    // overflows int64
		{"9999999999999", 365 * 24 * time.Hour, true},
	}
	for _, tc := range cases {
		got, ok := parseRetryAfter(tc.in, now)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestBackoffExponentialWithJitter(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "https://h", MinRetryWait: 100 * time.Millisecond, MaxRetryWait: time.Second})
	require.NoError(t, err)
	steps := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
	for i := range steps {
		steps[i] *= time.Millisecond
	}

	c.jitter = func(max time.Duration) time.Duration { return max }
	for n, want := range steps {
		assert.Equal(t, want, c.backoff(n), "upper bound of retry %d", n)
	}
	c.jitter = func(time.Duration) time.Duration { return 0 }
	for n, want := range steps {
		assert.Equal(t, want/2, c.backoff(n), "lower bound of retry %d", n)
	}
	assert.Equal(t, 500*time.Millisecond, c.backoff(1000), "no overflow on large retry numbers")

	// The real jitter stays inside [d/2, d].
	c.jitter = poll.Jitter
	for i := 0; i < 1000; i++ {
		d := c.backoff(2)
		require.GreaterOrEqual(t, d, 200*time.Millisecond)
		require.LessOrEqual(t, d, 400*time.Millisecond)
	}
	assert.Equal(t, time.Duration(0), poll.Jitter(0))

	// Retry-After replaces the backoff, capped.
	resp := &http.Response{Header: http.Header{"Retry-After": {"7"}}}
	c.maxRetryAfter = 5 * time.Second
	wait, fromServer := c.retryWait(0, resp)
	assert.Equal(t, 5*time.Second, wait)
	assert.True(t, fromServer)
	c.maxRetryAfter = time.Minute
	wait, _ = c.retryWait(0, resp)
	assert.Equal(t, 7*time.Second, wait)
}

func TestWaitTrimmedToDeadline(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		w.Header().Set("Retry-After", "7200")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "busy")
	})
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: srv.URL, MaxRetryAfter: 3 * time.Hour, Logger: slogLogger(logs)})
	// The deadline is far away but closer than the 2 h the server asks for:
	// the call must return the 503 at once rather than sleep into the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err := c.Do(ctx, &Request{Path: "x"})
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, "busy", ae.Message)
	assert.Equal(t, "busy", string(ae.Body))
	assert.Equal(t, 1, ae.Attempts)
	assert.Equal(t, int64(1), cnt.get())
	assert.NoError(t, ctx.Err())
	assert.Len(t, logs.find("pfc: not retrying, the wait would pass the context deadline"), 1)
	assert.Empty(t, logs.find("pfc: retrying request"))
	failed := logs.find("pfc: request failed")
	require.Len(t, failed, 1)
	assert.Equal(t, "the wait would pass the context deadline", failed[0]["reason"].String())
	assert.Equal(t, int64(1), failed[0]["attempts"].Int64())
}

func TestCancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		w.Header().Set("Retry-After", "3600") // an hour: only the cancellation can end the wait
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The Warn record is logged right before the wait starts: cancel then.
	logs := &logRecorder{onRecord: func(r slog.Record) {
		if r.Message == "pfc: retrying request" {
			cancel()
		}
	}}
	c, err := New(Options{BaseURL: srv.URL, MaxRetryAfter: 2 * time.Hour, Logger: slogLogger(logs)})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)

	done := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, &Request{Path: "x"})
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
		var ue *url.Error
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, srv.URL+"/x", ue.URL)
		assert.Equal(t, int64(1), cnt.get())
		require.Len(t, logs.find("pfc: retrying request"), 1)
		assert.Equal(t, time.Hour, logs.find("pfc: retrying request")[0]["wait"].Duration())
	case <-time.After(5 * time.Minute): // a report instead of a hang; far below the hour-long wait
		t.Fatal("Do did not return promptly after cancellation during the retry wait")
	}
}

func TestNoRetryOnceContextDone(t *testing.T) {
	t.Parallel()
	t.Run("cancelled before the call", func(t *testing.T) {
		cnt := &counter{}
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { cnt.inc() })
		c := newClient(t, Options{BaseURL: srv.URL})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Do(ctx, &Request{Path: "x"})
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, int64(0), cnt.get())
	})
	t.Run("cancelled while the server answers 503", func(t *testing.T) {
		cnt := &counter{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			cnt.inc()
			cancel()
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		c := newClient(t, Options{BaseURL: srv.URL})
		_, err := c.Do(ctx, &Request{Path: "x"})
		require.Error(t, err) // a 503 APIError or the cancellation, depending on the race
		assert.Equal(t, int64(1), cnt.get())
	})
	t.Run("deadline exceeded", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
		c := newClient(t, Options{BaseURL: srv.URL})
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := c.Do(ctx, &Request{Path: "x"})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// Retry-After values a broken or hostile server may send: none may panic,
// overflow or stall the client. Invalid ones fall back to the backoff,
// huge ones are capped, dates in the past mean "now".
func TestHostileRetryAfter(t *testing.T) {
	t.Parallel()
	const backoff = time.Millisecond // the first step of newClient's backoff
	cases := []struct {
		header     string
		wait       time.Duration
		fromServer bool
	}{
		{"-1", backoff, false},
		{"-99999999999999999999", backoff, false},
		{"99999999999999", 3 * time.Millisecond, true},
		{"99999999999999999999999999", backoff, false}, // beyond int64: not a number
		{"1e9", backoff, false},
		{"0x10", backoff, false},
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0, true},
		{"Fri, 31 Dec 9999 23:59:59 GMT", 3 * time.Millisecond, true},
		{strings.Repeat("9", 64<<10), backoff, false},
		{"\x7f\xff garbage", backoff, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%.32q", tc.header), func(t *testing.T) {
			cnt := &counter{}
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if cnt.inc() == 1 {
					w.Header()["Retry-After"] = []string{tc.header}
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			logs := &logRecorder{}
			c := newClient(t, Options{BaseURL: srv.URL, MaxRetryAfter: 3 * time.Millisecond, Logger: slogLogger(logs)})
			resp, err := c.Do(context.Background(), &Request{Path: "x"})
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, int64(2), cnt.get())
			retries := logs.find("pfc: retrying request")
			require.Len(t, retries, 1)
			assert.Equal(t, tc.wait, retries[0]["wait"].Duration())
			assert.Equal(t, tc.fromServer, retries[0]["retry_after"].Bool())
		})
	}
}

// When retries run out, the call's last log record says that it failed,
// at Warn, with the method, the redacted URL, the attempts, the reason and
// the redacted error; a call that succeeds after a retry, or that fails
// with an answer no retry would change, logs no such record.
func TestGivingUpIsLogged(t *testing.T) {
	t.Parallel()
	const key, lic = "k3y-SECRET", "lic/KEY 9"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"message":"busy, key `+key+`"}`)
		case "/gone":
			w.WriteHeader(http.StatusNotFound)
		default:
			hangUp(t, w)
		}
	})
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: key, Secrets: []string{lic},
		MaxRetries: 2, Logger: slogLogger(logs)})

	_, err := c.Do(context.Background(), &Request{Path: "busy", Query: url.Values{"license": {lic}}})
	require.ErrorIs(t, err, apierr.ErrServer)
	failed := logs.find("pfc: request failed")
	require.Len(t, failed, 1)
	rec := failed[0]
	assert.Equal(t, "WARN", rec["level"].String())
	assert.Equal(t, "GET", rec["method"].String())
	assert.Equal(t, srv.URL+"/busy?license=REDACTED", rec["url"].String())
	assert.Equal(t, int64(3), rec["attempts"].Int64())
	assert.Equal(t, int64(503), rec["status"].Int64())
	assert.Equal(t, "no retries left", rec["reason"].String())
	assert.Equal(t, err.Error(), rec["error"].String())
	assert.Contains(t, rec["error"].String(), "busy, key REDACTED")
	logs.mu.Lock()
	last := logs.records[len(logs.records)-1].Message
	logs.mu.Unlock()
	assert.Equal(t, "pfc: request failed", last, "the call's last record")

	_, err = c.Do(context.Background(), &Request{Path: "hang/" + PathJoin(lic)})
	require.Error(t, err)
	failed = logs.find("pfc: request failed")
	require.Len(t, failed, 2)
	assert.Equal(t, int64(3), failed[1]["attempts"].Int64())
	assert.Equal(t, srv.URL+"/hang/REDACTED", failed[1]["url"].String())
	assert.Equal(t, err.Error(), failed[1]["error"].String())
	_, hasStatus := failed[1]["status"]
	assert.False(t, hasStatus, "a transport failure has no status")

	_, err = c.Do(context.Background(), &Request{Path: "gone"})
	require.ErrorIs(t, err, apierr.ErrNotFound)
	assert.Len(t, logs.find("pfc: request failed"), 2, "a 404 is not retried: nothing was given up")
	assertNoSecrets(t, logs.String(), key, lic, "lic%2FKEY%209", "KEY 9")
}
