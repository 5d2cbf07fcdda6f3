package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

func TestNewValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   Options
		fields []string
	}{
		{"missing base", Options{}, []string{"BaseURL"}},
		{"relative base", Options{BaseURL: "/v2"}, []string{"BaseURL"}},
		{"ftp base", Options{BaseURL: "ftp://h/v2"}, []string{"BaseURL"}},
		{"no host", Options{BaseURL: "https:///v2"}, []string{"BaseURL"}},
		{"user info", Options{BaseURL: "https://u:p@h/v2"}, []string{"BaseURL"}},
		{"query", Options{BaseURL: "https://h/v2?x=1"}, []string{"BaseURL"}},
		{"fragment", Options{BaseURL: "https://h/v2#f"}, []string{"BaseURL"}},
		{"bad header name", Options{BaseURL: "https://h", AuthHeader: "X API KEY", AuthValue: "k"}, []string{"AuthHeader"}},
		{"value without header", Options{BaseURL: "https://h", AuthValue: "k"}, []string{"AuthHeader"}},
		{"control char in value", Options{BaseURL: "https://h", AuthHeader: "X-API-KEY", AuthValue: "sec\r\nret"}, []string{"AuthValue"}},
		{"control char in UA", Options{BaseURL: "https://h", UserAgent: "a\nb"}, []string{"UserAgent"}},
		{"negative waits", Options{BaseURL: "https://h", MinRetryWait: -1, MaxRetryWait: -1, MaxRetryAfter: -1}, []string{"MinRetryWait", "MaxRetryWait", "MaxRetryAfter"}},
		{"max below min", Options{BaseURL: "https://h", MinRetryWait: time.Second, MaxRetryWait: time.Millisecond}, []string{"MaxRetryWait"}},
		{"everything", Options{BaseURL: "nope", AuthValue: "k", MinRetryWait: 2, MaxRetryWait: 1}, []string{"BaseURL", "AuthHeader", "MaxRetryWait"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.opts)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, apierr.ErrInvalidParameter)
			var ve *apierr.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.fields, ve.Fields())
			assert.NotContains(t, err.Error(), "sec\r\nret")
		})
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "https://api.example.test/v2/"})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxRetries, c.maxRetries)
	assert.Equal(t, DefaultMinRetryWait, c.minWait)
	assert.Equal(t, DefaultMaxRetryWait, c.maxWait)
	assert.Equal(t, DefaultMaxRetryAfter, c.maxRetryAfter)
	assert.Equal(t, "pfc-go/0.1.0", c.userAgent)
	assert.Equal(t, "https://api.example.test/v2", c.baseString)

	c, err = New(Options{BaseURL: "https://h", UserAgent: "myapp/1.2", MaxRetries: -1, MinRetryWait: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "pfc-go/0.1.0 myapp/1.2", c.userAgent)
	assert.Equal(t, 0, c.maxRetries)
	assert.Equal(t, time.Minute, c.maxWait, "default max wait grows to the min wait")

	// The caller's client is copied, not modified.
	hc := &http.Client{Timeout: time.Second}
	c, err = New(Options{BaseURL: "https://h", HTTPClient: hc})
	require.NoError(t, err)
	assert.Nil(t, hc.CheckRedirect)
	assert.Nil(t, hc.Transport)
	assert.Equal(t, time.Second, c.hc.Timeout)
}

func TestURLPathJoinAndSameOrigin(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "https://api.example.test:443/v2/"})
	require.NoError(t, err)

	assert.Equal(t, "a%2Fb%20c/d", PathJoin("a/b c", "d"))
	assert.Equal(t, PathJoin("x/y"), PathEscape("x/y"))
	assert.Equal(t, "https://api.example.test:443/v2/status/job%2F1", c.URL("status/"+PathJoin("job/1")))
	assert.Equal(t, "https://api.example.test:443/v2/presets/", c.URL("/presets/"))
	assert.Equal(t, "https://api.example.test:443/v2", c.URL(""))
	assert.Equal(t, "", c.URL("pfc?x=1"))
	assert.Equal(t, "https://api.example.test:443/v2/%2F%2Fevil.test", c.URL(PathJoin("//evil.test")))

	assert.True(t, c.SameOrigin("https://API.example.test/v2/status/1"))
	assert.True(t, c.SameOrigin("https://api.example.test:443/other"))
	assert.False(t, c.SameOrigin("http://api.example.test/v2"))
	assert.False(t, c.SameOrigin("https://api.example.test:8443/v2"))
	assert.False(t, c.SameOrigin("https://cdn.example.test/v2"))
	assert.False(t, c.SameOrigin("/v2/status"))
}

func TestEscapedPathReachesServerVerbatim(t *testing.T) {
	t.Parallel()
	var gotURI, gotPath string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotURI, gotPath = r.RequestURI, r.URL.Path
	})
	c := newClient(t, Options{BaseURL: srv.URL + "/v2"})
	resp, err := c.Do(context.Background(), &Request{
		Path:  "status/" + PathJoin("a/b c"),
		Query: url.Values{"preset": {"School and Sports"}, "x": {"1+1"}, "noRedirect": {"true"}},
	})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "/v2/status/a%2Fb%20c?noRedirect=true&preset=School%20and%20Sports&x=1%2B1", gotURI)
	assert.Equal(t, "/v2/status/a/b c", gotPath)

	resp, err = c.Do(context.Background(), &Request{Path: "/pfc", RawQuery: "b=2&a=1", Query: url.Values{"ignored": {"y"}}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "/v2/pfc?b=2&a=1", gotURI)

	_, err = c.Do(context.Background(), &Request{Path: "pfc?x=1"})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"Path"}, ve.Fields())

	_, err = c.Do(context.Background(), &Request{Method: "BAD METHOD"})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"Method"}, ve.Fields())

	var nilCtx context.Context
	_, err = c.Do(nilCtx, &Request{})
	require.ErrorAs(t, err, &ve)

	_, err = c.DoExternal(context.Background(), "GET", "ftp://h/x?sig=secretsig", nil, Body{})
	require.ErrorAs(t, err, &ve)
	assert.NotContains(t, err.Error(), "secretsig")
}

func TestHeadersOnEveryRequest(t *testing.T) {
	t.Parallel()
	var got []http.Header
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		if len(got) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"fileKey":"k"}`))
	})
	c := newClient(t, Options{BaseURL: srv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: "key-1", UserAgent: "myapp/1.2"})
	var out struct{ FileKey string }
	require.NoError(t, c.DoJSON(context.Background(), &Request{Path: "upload", Header: http.Header{"X-Extra": {"1"}}}, &out))
	assert.Equal(t, "k", out.FileKey)
	require.Len(t, got, 2)
	for _, h := range got {
		assert.Equal(t, "pfc-go/0.1.0 myapp/1.2", h.Get("User-Agent"))
		assert.Equal(t, "key-1", h.Get("X-Api-Key"))
		assert.Equal(t, "application/json", h.Get("Accept"))
		assert.Equal(t, "1", h.Get("X-Extra"))
	}
}

func TestDoJSONErrors(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{"/bad": "not json", "/empty": "", "/nocontent": "", "/redirect": ""}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/redirect":
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(http.StatusFound)
		default:
			_, _ = w.Write([]byte(bodies[r.URL.Path]))
		}
	})
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: "topsecret"})
	var out map[string]any

	err := c.DoJSON(context.Background(), &Request{Path: "bad", Query: url.Values{"k": {"topsecret"}}}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pfc: GET "+srv.URL+"/bad?k=REDACTED: decoding JSON response")
	var syn *json.SyntaxError
	assert.ErrorAs(t, err, &syn)

	err = c.DoJSON(context.Background(), &Request{Path: "empty"}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty body")

	assert.NoError(t, c.DoJSON(context.Background(), &Request{Path: "nocontent"}, &out))
	assert.NoError(t, c.DoJSON(context.Background(), &Request{Path: "empty"}, nil))

	err = c.DoJSON(context.Background(), &Request{Path: "redirect", NoFollowRedirects: true}, &out)
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusFound, ae.StatusCode)
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if cnt.inc()%3 == 0 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	c := newClient(t, Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: "k", MaxRetries: 10})
	errs := make(chan error, 32)
	for i := 0; i < cap(errs); i++ {
		go func() {
			var out struct{ OK bool }
			err := c.DoJSON(context.Background(), &Request{Path: "x", Body: BytesBody([]byte("abc"), "text/plain"), Method: "POST"}, &out)
			if err == nil && !out.OK {
				err = errors.New("not ok")
			}
			errs <- err
		}()
	}
	for i := 0; i < cap(errs); i++ {
		assert.NoError(t, <-errs)
	}
	assert.True(t, strings.HasPrefix(c.userAgent, "pfc-go/"))
}

// StatusError turns an unhandled status into an *apierr.APIError whose URL
// and body are redacted, and copes with an answer that has no request.
func TestStatusError(t *testing.T) {
	t.Parallel()
	c := newClient(t, Options{BaseURL: "https://api.test/v2/", AuthHeader: "X-API-KEY", AuthValue: "k-secret-123"})
	req, err := http.NewRequest(http.MethodGet, "https://api.test/v2/status/j1?noRedirect=true", nil)
	require.NoError(t, err)
	resp := &http.Response{
		StatusCode: http.StatusPermanentRedirect, Request: req,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(strings.NewReader(`{"message":"moved; your key k-secret-123"}`)),
	}
	e := c.StatusError(http.MethodGet, resp)
	assert.Equal(t, http.StatusPermanentRedirect, e.StatusCode)
	assert.Equal(t, "https://api.test/v2/status/j1?noRedirect=true", e.URL)
	assert.Equal(t, "moved; your key REDACTED", e.Message)
	assert.NotContains(t, e.Error(), "k-secret-123")

	resp = &http.Response{StatusCode: http.StatusMovedPermanently, Body: http.NoBody}
	e = c.StatusError(http.MethodGet, resp)
	assert.Equal(t, http.StatusMovedPermanently, e.StatusCode)
	assert.Empty(t, e.URL)
}

// TestDefaultTransportIsAPooledClone: without an HTTPClient each Client
// owns a clone of http.DefaultTransport (proxy from the environment, its
// timeouts) that keeps GOMAXPROCS+1 idle connections per host.
func TestDefaultTransportIsAPooledClone(t *testing.T) {
	t.Parallel()
	a, err := New(Options{BaseURL: "https://api.example.test/v2"})
	require.NoError(t, err)
	b, err := New(Options{BaseURL: "https://api.example.test/v2"})
	require.NoError(t, err)
	ta, ok := a.rt.rt.(*http.Transport)
	require.True(t, ok, "transport is %T", a.rt.rt)
	def := http.DefaultTransport.(*http.Transport)
	assert.NotSame(t, def, ta)
	assert.NotSame(t, ta, b.rt.rt, "each client has its own pool")
	assert.Equal(t, runtime.GOMAXPROCS(0)+1, ta.MaxIdleConnsPerHost)
	assert.NotNil(t, ta.Proxy)
	assert.Equal(t, def.IdleConnTimeout, ta.IdleConnTimeout)
	assert.Equal(t, def.TLSHandshakeTimeout, ta.TLSHandshakeTimeout)
	assert.True(t, ta.ForceAttemptHTTP2)
}

// TestInvalidMethod: a method that is not a token is refused before
// anything is sent, naming the field.
func TestInvalidMethod(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: cannedJSON{}}})
	require.NoError(t, err)
	_, err = c.Do(context.Background(), &Request{Method: "GET /x", Path: "a"})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "Method", ve.Errors[0].Field)
}

// TestDoExternalLeavesCallersHeader: DoExternal sends its own copy of the
// caller's header, without the credential and with its User-Agent and
// Content-Type, and leaves the caller's map as it was.
func TestDoExternalLeavesCallersHeader(t *testing.T) {
	t.Parallel()
	var sent http.Header
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = r.Header.Clone()
		return cannedJSON{}.RoundTrip(r)
	})
	c, err := New(Options{BaseURL: "http://127.0.0.1:1", AuthHeader: "X-API-KEY", AuthValue: "k-0123456789abcdef",
		HTTPClient: &http.Client{Transport: rt}})
	require.NoError(t, err)
	header := http.Header{"X-Api-Key": {"k-0123456789abcdef"}, "X-Custom": {"a"}}
	before := header.Clone()
	resp, err := c.DoExternal(context.Background(), http.MethodPut, "http://storage.test/u?sig=0123456789", header, BytesBody([]byte("x"), "image/jpeg"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, before, header, "the caller's header is unchanged")
	assert.Empty(t, sent.Get("X-Api-Key"))
	assert.Equal(t, "a", sent.Get("X-Custom"))
	assert.Equal(t, "image/jpeg", sent.Get("Content-Type"))
	assert.NotEmpty(t, sent.Get("User-Agent"))
}
