package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
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

// headerLog records the headers of every request the test servers get,
// in order, with their paths.
type headerLog struct {
	mu   sync.Mutex
	reqs []loggedRequest
}

type loggedRequest struct {
	path   string
	header http.Header
}

func (l *headerLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, loggedRequest{r.URL.Path, r.Header.Clone()})
}

// present returns those of names that the requests to path carried.
func (l *headerLog) present(path string, names ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		for _, n := range names {
			if r.path == path && r.header.Get(n) != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// values returns, per request in order, its values of each of names
// (several of one name joined by ","), joined by "|".
func (l *headerLog) values(names ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		var vs []string
		for _, n := range names {
			vs = append(vs, strings.Join(r.header.Values(n), ","))
		}
		out = append(out, strings.Join(vs, "|"))
	}
	return out
}

// originServers starts a storage server and a service whose /v2/file
// redirects to the storage (a pre-signed URL), /v2/moved to /v2/here
// and /v2/chain to /v2/file (both on its origin), both recording into l.
func originServers(t *testing.T, l *headerLog) (api, storage string) {
	st := newServer(t, func(w http.ResponseWriter, r *http.Request) { l.record(r) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		l.record(r)
		switch r.URL.Path {
		case "/v2/file":
			http.Redirect(w, r, st.URL+"/object?X-Amz-Signature=sig0123456789", http.StatusFound)
		case "/v2/moved":
			http.Redirect(w, r, "/v2/here", http.StatusFound)
		case "/v2/chain":
			http.Redirect(w, r, "/v2/file", http.StatusFound)
		}
	})
	return srv.URL, st.URL
}

// get sends r through c and reads the answer whole.
func get(t *testing.T, c *Client, r *Request) {
	t.Helper()
	resp, err := c.Do(context.Background(), r)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestTraceContextStaysOnTheServiceOrigin: a trace context an observer
// adds reaches the service, follows a redirect on its origin, but not
// one to another origin (a pre-signed storage URL), and never goes with
// DoExternal.
func TestTraceContextStaysOnTheServiceOrigin(t *testing.T) {
	t.Parallel()
	var seen headerLog
	api, storage := originServers(t, &seen)
	c := newClient(t, Options{BaseURL: api + "/v2", Observer: &attemptLog{}})
	for _, p := range []string{"file", "moved"} {
		get(t, c, &Request{Path: p})
	}
	resp, err := c.DoExternal(context.Background(), http.MethodGet, storage+"/direct?sig=abc", nil, Body{})
	require.NoError(t, err)
	resp.Body.Close()

	assert.NotEmpty(t, seen.present("/v2/file", "Traceparent"))
	assert.Empty(t, seen.present("/object", "Traceparent"), "a redirect to another origin")
	assert.NotEmpty(t, seen.present("/v2/moved", "Traceparent"))
	assert.NotEmpty(t, seen.present("/v2/here", "Traceparent"), "a redirect on the service's origin")
	assert.Empty(t, seen.present("/direct", "Traceparent"), "DoExternal")
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
	var seen headerLog
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { seen.record(r) })
	obs := &keyPeeker{}
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: testKey, Observer: obs})
	get(t, c, &Request{Path: "status"})
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Empty(t, obs.seen)
	assert.Equal(t, []string{testKey}, seen.values("X-Api-Key"), "the one request has the key once")
	traces := seen.values("Traceparent")
	assert.Len(t, traces, 1)
	assert.NotEmpty(t, traces[0])
}

// headerAdder is an Observer that adds its headers to every attempt that
// has a header for them, or with first to the first attempt only (a
// sampler, or a propagator with nothing to say, may add none to a retry).
type headerAdder struct {
	pfc.NopObserver
	add   http.Header
	first bool
}

func (o headerAdder) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	if a.Header != nil && (!o.first || a.Number == 1) {
		for k, v := range o.add {
			a.Header[k] = slices.Clone(v)
		}
	}
	return ctx
}

// b3Observer adds the headers of other trace propagators (B3, one of
// them not in canonical form, Jaeger) and baggage, as an OpenTelemetry
// composite propagator would.
var b3Observer = headerAdder{add: http.Header{
	"X-B3-Traceid":  {"0af7651916cd43dd8448eb211c80319c"},
	"b3":            {"0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1"},
	"Uber-Trace-Id": {"0af7651916cd43dd:b7ad6b7169203331:0:1"},
	"Baggage":       {"tenant=acme"},
}}

// TestObserverHeadersStayOnTheServiceOrigin: every header an observer
// adds (not only the W3C trace context: B3, Jaeger, baggage) reaches the
// service and follows a redirect on its origin, but none follows a
// redirect to another origin (a pre-signed storage URL).
func TestObserverHeadersStayOnTheServiceOrigin(t *testing.T) {
	t.Parallel()
	var seen headerLog
	api, _ := originServers(t, &seen)
	c := newClient(t, Options{BaseURL: api + "/v2", Observer: b3Observer})
	get(t, c, &Request{Path: "chain"})

	b3 := []string{"X-B3-Traceid", "B3", "Uber-Trace-Id", "Baggage"}
	assert.Len(t, seen.present("/v2/chain", b3...), 4, "the service gets them")
	assert.Len(t, seen.present("/v2/file", b3...), 4, "a redirect on the service's origin")
	assert.Empty(t, seen.present("/object", b3...), "a redirect to another origin")
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

// TestObserverHeadersAreTheAttempts: what an observer added to one
// attempt is not sent again with the next, which carries only what the
// observer adds to it.
func TestObserverHeadersAreTheAttempts(t *testing.T) {
	t.Parallel()
	var log headerLog
	var n counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		if n.inc() == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	c := newClient(t, Options{BaseURL: srv.URL, Observer: headerAdder{first: true, add: http.Header{
		"Traceparent":  {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		"X-B3-Traceid": {"0af7651916cd43dd8448eb211c80319c"},
	}}})
	get(t, c, &Request{Endpoint: &Endpoint{Method: http.MethodGet, Route: "/status", Replay: true}})
	seen := log.values("Traceparent", "X-B3-Traceid")
	require.Len(t, seen, 2)
	assert.NotEqual(t, "|", seen[0], "the first attempt has them")
	assert.Equal(t, "|", seen[1], "the retry has none")
}
