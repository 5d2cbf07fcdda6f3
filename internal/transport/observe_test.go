package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// attemptLog is an Observer recording attempts and retry waits, and
// adding a trace context to every request it may.
type attemptLog struct {
	pfc.NopObserver
	mu       sync.Mutex
	attempts []pfc.Attempt
	waits    []pfc.RetryWait
}

func (l *attemptLog) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	if a.Header != nil {
		a.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	}
	return ctx
}

func (l *attemptLog) EndAttempt(_ context.Context, a *pfc.Attempt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts = append(l.attempts, *a)
}

func (l *attemptLog) RetryWait(_ context.Context, w *pfc.RetryWait) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits = append(l.waits, *w)
}

// TestTraceContextStaysOnTheServiceOrigin: a trace context an observer
// adds reaches the service, follows a redirect on its origin, but not
// one to another origin (a pre-signed storage URL), and never goes with
// DoExternal.
func TestTraceContextStaysOnTheServiceOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{}
	record := func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[r.URL.Path] = r.Header.Get("Traceparent")
	}
	storage := newServer(t, func(w http.ResponseWriter, r *http.Request) { record(r) })
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		record(r)
		switch r.URL.Path {
		case "/v2/file":
			http.Redirect(w, r, storage.URL+"/object?X-Amz-Signature=sig0123456789", http.StatusFound)
		case "/v2/moved":
			http.Redirect(w, r, "/v2/here", http.StatusFound)
		}
	})
	obs := &attemptLog{}
	c := newClient(t, Options{BaseURL: api.URL + "/v2", Observer: obs})
	for _, p := range []string{"file", "moved"} {
		resp, err := c.Do(context.Background(), &Request{Path: p})
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := c.DoExternal(context.Background(), http.MethodGet, storage.URL+"/direct?sig=abc", nil, Body{})
	require.NoError(t, err)
	resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	assert.NotEmpty(t, seen["/v2/file"])
	assert.Empty(t, seen["/object"], "a redirect to another origin")
	assert.NotEmpty(t, seen["/v2/moved"])
	assert.NotEmpty(t, seen["/v2/here"], "a redirect on the service's origin")
	assert.Empty(t, seen["/direct"], "DoExternal")
}

// TestObserverSeesAttemptsAndWaits: a call answered 503 then 200 gives
// two attempts, numbered, with the route template and the status, and
// one retry wait between them with its reason.
func TestObserverSeesAttemptsAndWaits(t *testing.T) {
	t.Parallel()
	var n counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.inc() == 1 {
			w.Header().Set("X-Request-Id", "req-1")
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	obs := &attemptLog{}
	c := newClient(t, Options{BaseURL: srv.URL, Observer: obs})
	ep := &Endpoint{Method: http.MethodGet, Route: "/status/{jobID}", Replay: true}
	resp, err := c.Do(context.Background(), &Request{Endpoint: ep, Params: []string{"job-42"}})
	require.NoError(t, err)
	resp.Body.Close()

	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Len(t, obs.attempts, 2)
	assert.Equal(t, "/status/{jobID}", obs.attempts[0].Route)
	assert.Equal(t, 1, obs.attempts[0].Number)
	assert.Equal(t, 503, obs.attempts[0].Status)
	assert.Equal(t, "req-1", obs.attempts[0].RequestID)
	assert.Equal(t, 2, obs.attempts[1].Number)
	assert.Equal(t, 200, obs.attempts[1].Status)
	assert.Nil(t, obs.attempts[1].Header, "the header is for StartAttempt only")
	require.Len(t, obs.waits, 1)
	assert.Equal(t, "server error", obs.waits[0].Reason)
	assert.Equal(t, 1, obs.waits[0].Attempt)
	assert.Equal(t, 503, obs.waits[0].Status)
}

// keyPeeker is an Observer that looks for the credential in the header
// it gets, and tries to replace it.
type keyPeeker struct {
	pfc.NopObserver
	mu   sync.Mutex
	seen []string
}

func (k *keyPeeker) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, v := range a.Header {
		k.seen = append(k.seen, name+"="+strings.Join(v, ","))
	}
	a.Header.Set("x-api-key", "replaced")
	a.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	return ctx
}

// TestObserverNeverSeesTheCredential: the header an observer gets is
// empty (the request's holds the credential), and what it adds cannot
// replace the credential.
func TestObserverNeverSeesTheCredential(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys, traces []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Values("X-Api-Key")...)
		traces = append(traces, r.Header.Get("Traceparent"))
	})
	obs := &keyPeeker{}
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: testKey, Observer: obs})
	resp, err := c.Do(context.Background(), &Request{Path: "status"})
	require.NoError(t, err)
	resp.Body.Close()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Empty(t, obs.seen)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{testKey}, keys)
	assert.Len(t, traces, 1)
	assert.NotEmpty(t, traces[0])
}

// b3Observer adds the headers of other trace propagators (B3, Jaeger) and
// baggage, as an OpenTelemetry composite propagator would.
type b3Observer struct{ pfc.NopObserver }

func (b3Observer) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	if a.Header != nil {
		a.Header.Set("X-B3-TraceId", "0af7651916cd43dd8448eb211c80319c")
		a.Header["b3"] = []string{"0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1"}
		a.Header.Set("Uber-Trace-Id", "0af7651916cd43dd:b7ad6b7169203331:0:1")
		a.Header.Set("Baggage", "tenant=acme")
	}
	return ctx
}

// TestObserverHeadersStayOnTheServiceOrigin: every header an observer
// adds (not only the W3C trace context: B3, Jaeger, baggage) reaches the
// service and follows a redirect on its origin, but none follows a
// redirect to another origin (a pre-signed storage URL).
func TestObserverHeadersStayOnTheServiceOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string][]string{}
	record := func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for _, h := range []string{"X-B3-Traceid", "B3", "Uber-Trace-Id", "Baggage"} {
			if v := r.Header.Get(h); v != "" {
				seen[r.URL.Path] = append(seen[r.URL.Path], h)
			}
		}
	}
	storage := newServer(t, func(w http.ResponseWriter, r *http.Request) { record(r) })
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		record(r)
		switch r.URL.Path {
		case "/v2/file":
			http.Redirect(w, r, "/v2/file2", http.StatusFound)
		case "/v2/file2":
			http.Redirect(w, r, storage.URL+"/object?X-Amz-Signature=sig0123456789", http.StatusFound)
		}
	})
	c := newClient(t, Options{BaseURL: api.URL + "/v2", Observer: b3Observer{}})
	resp, err := c.Do(context.Background(), &Request{Path: "file"})
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, seen["/v2/file"], 4, "the service gets them")
	assert.Len(t, seen["/v2/file2"], 4, "a redirect on the service's origin")
	assert.Empty(t, seen["/object"], "a redirect to another origin")
}

// TestPresignedSignatureInHostAndPath: a pre-signed URL whose host and
// path repeat its signature (a hostile service's) gets it into no log
// record and no Attempt.Server, as its error already hides it.
func TestPresignedSignatureInHostAndPath(t *testing.T) {
	t.Parallel()
	const sig = "sig0123456789abcdef0123"
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), IsNotFound: true}}
	})
	obs := &attemptLog{}
	rec := &logRecorder{}
	c := newClient(t, Options{BaseURL: "https://api.test/v2", Observer: obs, Logger: slogLogger(rec),
		MaxRetries: 1, MinRetryWait: 1, MaxRetryWait: 1, HTTPClient: &http.Client{Transport: rt}})
	for _, u := range []string{
		"http://" + sig + ".storage.test/" + sig + "/o?X-Amz-Signature=" + sig,
		"http://" + strings.ToUpper(sig) + ".storage.test/o?X-Amz-Signature=" + sig,
	} {
		_, err := c.DoExternal(context.Background(), http.MethodGet, u, nil, Body{})
		require.Error(t, err)
		assert.NotContains(t, strings.ToLower(err.Error()), sig)
	}
	assert.NotContains(t, strings.ToLower(rec.String()), sig)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Len(t, obs.attempts, 4)
	for _, a := range obs.attempts {
		assert.NotContains(t, strings.ToLower(a.Server), sig)
		assert.Contains(t, a.Server, ".storage.test")
	}
}

// TestAttemptRequestIDCutAfterRedaction: a request id over 256 bytes
// whose end is the API key, wherever the cut falls in it, leaves no
// prefix of the key in Attempt.RequestID (it was cut, then redacted).
func TestAttemptRequestIDCutAfterRedaction(t *testing.T) {
	t.Parallel()
	var pad atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", strings.Repeat("a", int(pad.Load()))+testKey)
	})
	obs := &attemptLog{}
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: testKey, Observer: obs})
	for p := 256 - len(testKey) + 1; p < 256; p++ {
		pad.Store(int32(p))
		resp, err := c.Do(context.Background(), &Request{Path: "status"})
		require.NoError(t, err)
		resp.Body.Close()
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Len(t, obs.attempts, len(testKey)-1)
	for _, a := range obs.attempts {
		assert.NotContains(t, a.RequestID, testKey[:4])
		assert.LessOrEqual(t, len(a.RequestID), 256)
	}
}

// firstOnly adds a trace context to an attempt's request only when it is
// the first (a sampler, or a propagator with nothing to say, may add none
// to a retry).
type firstOnly struct{ pfc.NopObserver }

func (firstOnly) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	if a.Number == 1 && a.Header != nil {
		a.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		a.Header.Set("X-B3-TraceId", "0af7651916cd43dd8448eb211c80319c")
	}
	return ctx
}

// TestObserverHeadersAreTheAttempts: what an observer added to one
// attempt is not sent again with the next, which carries only what the
// observer adds to it.
func TestObserverHeadersAreTheAttempts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	var n counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Traceparent")+"|"+r.Header.Get("X-B3-Traceid"))
		mu.Unlock()
		if n.inc() == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	c := newClient(t, Options{BaseURL: srv.URL, Observer: firstOnly{}})
	resp, err := c.Do(context.Background(), &Request{Endpoint: &Endpoint{Method: http.MethodGet, Route: "/status", Replay: true}})
	require.NoError(t, err)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	assert.NotEqual(t, "|", seen[0], "the first attempt has them")
	assert.Equal(t, "|", seen[1], "the retry has none")
}
