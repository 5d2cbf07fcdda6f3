package transport

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// hop is what a server saw of one request.
type hop struct {
	url    string
	header http.Header
	body   []byte
	cl     int64
}

// hopLog records every request a server receives.
type hopLog struct {
	mu   sync.Mutex
	hops []hop
}

func (l *hopLog) record(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hops = append(l.hops, hop{url: r.URL.String(), header: r.Header.Clone(), body: b, cl: r.ContentLength})
}

func (l *hopLog) all() []hop {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]hop(nil), l.hops...)
}

// text renders everything the server saw, for grepping.
func (h hop) text() string {
	var b strings.Builder
	b.WriteString(h.url + "\n")
	_ = h.header.Write(&b)
	b.Write(h.body)
	return b.String()
}

// net/http gives every redirect hop a Referer holding the previous hop's
// full URL: a license key in the path, the API query or a pre-signed
// signature would reach the next host.
func TestRedirectSendsNoReferer(t *testing.T) {
	t.Parallel()
	const license = "LIC-0123456789"
	foreign := &hopLog{}
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { foreign.record(r) })
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	})
	c := newClient(t, Options{BaseURL: api.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey, Secrets: []string{license}})

	resp, err := c.Do(context.Background(), &Request{Path: "Authorize/" + PathJoin(license), Query: url.Values{"token": {"q-secret-123456"}}})
	require.NoError(t, err)
	resp.Body.Close()
	resp, err = c.DoExternal(context.Background(), http.MethodGet, api.URL+"/file.jpg?X-Amz-Signature=sig-0123456789", nil, Body{})
	require.NoError(t, err)
	resp.Body.Close()

	hops := foreign.all()
	require.Len(t, hops, 2)
	for _, h := range hops {
		assert.Empty(t, h.header.Values("Referer"))
		assertNoSecrets(t, h.text(), testKey, license, "q-secret-123456", "sig-0123456789")
	}

	// A Referer the caller set on purpose is the caller's business.
	resp, err = c.Do(context.Background(), &Request{Path: "x", Header: http.Header{"Referer": {"https://app.example.test/"}}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "https://app.example.test/", foreign.all()[2].header.Get("Referer"))
}

// The credential header is matched case-insensitively: a spelling net/http
// does not canonicalise (set by direct map assignment) must not survive a
// cross-origin redirect or reach a pre-signed URL.
func TestCredentialHeaderAnySpelling(t *testing.T) {
	t.Parallel()
	foreign := &hopLog{}
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { foreign.record(r) })
	own := &hopLog{}
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		own.record(r)
		http.Redirect(w, r, other.URL+"/file", http.StatusFound)
	})
	c := newClient(t, Options{BaseURL: api.URL, AuthHeader: "X-API-KEY", AuthValue: testKey})

	resp, err := c.Do(context.Background(), &Request{Path: "x", Header: http.Header{"x-api-key": {"stale-" + testKey}}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, own.all(), 1)
	assert.Equal(t, []string{testKey}, own.all()[0].header.Values("X-Api-Key"), "one credential, the client's")

	resp, err = c.DoExternal(context.Background(), http.MethodGet, other.URL+"/presigned?sig=abcdefgh1234", http.Header{"x-api-key": {testKey}}, Body{})
	require.NoError(t, err)
	resp.Body.Close()

	hops := foreign.all()
	require.Len(t, hops, 2)
	for _, h := range hops {
		assertNoSecrets(t, h.text(), testKey)
	}
}

// The redirect policy, per kind of hop: the key follows only while every
// hop stays on the API origin (scheme, host and port), and a 307/308 replays
// the body with its exact Content-Length whatever the target.
func TestRedirectCredentialMatrix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		status   int
		location string
		keyKept  bool
	}{
		{"same origin 308", http.StatusPermanentRedirect, "https://api.example.test/v2/moved", true},
		{"same origin, explicit default port", http.StatusTemporaryRedirect, "https://api.example.test:443/v2/moved", true},
		{"host case and trailing dot", http.StatusTemporaryRedirect, "https://API.example.test./v2/moved", true},
		{"another host 307", http.StatusTemporaryRedirect, "https://files.example.test/v2/moved", false},
		{"another host 308", http.StatusPermanentRedirect, "https://files.example.test/v2/moved", false},
		{"scheme downgrade, same host", http.StatusPermanentRedirect, "http://api.example.test/v2/moved", false},
		{"same scheme, other port", http.StatusTemporaryRedirect, "https://api.example.test:8443/v2/moved", false},
		{"subdomain", http.StatusTemporaryRedirect, "https://eu.api.example.test/v2/moved", false},
		{"userinfo trick", http.StatusTemporaryRedirect, "https://api.example.test@evil.example.test/v2/moved", false},
	}
	payload := []byte(`{"name":"preset"}`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hops []hop
			rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				var b []byte
				if r.Body != nil {
					b, _ = io.ReadAll(r.Body)
					_ = r.Body.Close()
				}
				hops = append(hops, hop{url: r.URL.String(), header: r.Header.Clone(), body: b, cl: r.ContentLength})
				resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: r}
				if len(hops) == 1 {
					resp.StatusCode = tc.status
					resp.Header.Set("Location", tc.location)
				}
				return resp, nil
			})
			c := newClient(t, Options{BaseURL: "https://api.example.test/v2", AuthHeader: "X-API-KEY", AuthValue: testKey,
				HTTPClient: &http.Client{Transport: rt}})
			resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "presets/", Body: BytesBody(payload, "application/json")})
			require.NoError(t, err)
			resp.Body.Close()

			require.Len(t, hops, 2)
			assert.Equal(t, testKey, hops[0].header.Get("X-Api-Key"))
			if tc.keyKept {
				assert.Equal(t, testKey, hops[1].header.Get("X-Api-Key"))
			} else {
				assertNoSecrets(t, hops[1].text(), testKey)
			}
			assert.Empty(t, hops[1].header.Values("Referer"))
			assert.Equal(t, payload, hops[1].body, "307/308 resend the body")
			assert.Equal(t, int64(len(payload)), hops[1].cl, "with its exact Content-Length")
		})
	}
}

// A pre-signed URL reached by a redirect is as secret as one given to
// DoExternal: an object store echoing its signature must not put it in the
// error.
func TestRedirectTargetSignatureRedacted(t *testing.T) {
	t.Parallel()
	const sig = "hopSignature0123456789"
	store := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(r.URL.Query().Get("X-Amz-Signature")))
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `<Error><Code>SignatureDoesNotMatch</Code><Message>signature `+b.String()+` does not match</Message></Error>`)
	})
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, store.URL+"/out/1.jpg?X-Amz-Expires=900&X-Amz-Signature="+sig, http.StatusFound)
	})
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: api.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey, Logger: slogLogger(logs)})
	for _, do := range []func() error{
		func() error { _, err := c.Do(context.Background(), &Request{Path: "status/1"}); return err },
		func() error {
			_, err := c.DoExternal(context.Background(), http.MethodGet, api.URL+"/v2/download?sig=first-0123456", nil, Body{})
			return err
		},
	} {
		err := do()
		var ae *apierr.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusForbidden, ae.StatusCode)
		assert.Equal(t, "signature REDACTED does not match", ae.Message)
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", ae), string(ae.Body), ae.Message, logs.String()} {
			assertNoSecrets(t, s, sig, testKey, "first-0123456")
		}
	}
}

// net/http quotes an unparsable Location in its error; the Location may be
// a pre-signed URL whose signature the redactor has never seen.
func TestBadLocationNotQuoted(t *testing.T) {
	t.Parallel()
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Location"] = []string{"https://files.example.test/%zz?X-Amz-Signature=locSignature0123"}
		w.WriteHeader(http.StatusFound)
	})
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: api.URL, Logger: slogLogger(logs)})
	_, err := c.Do(context.Background(), &Request{Path: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Location")
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, api.URL+"/x", ue.URL)
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), ue.Err.Error(), logs.String()} {
		assertNoSecrets(t, s, "locSignature0123", "%zz")
	}
}

// A Client holds the credential; printing it by mistake, with any verb,
// through fmt or slog, must not reveal it.
func TestClientFormatHidesSecrets(t *testing.T) {
	t.Parallel()
	c := newClient(t, Options{BaseURL: "https://api.example.test/v2", AuthHeader: "X-API-KEY", AuthValue: testKey, Secrets: []string{"LIC-0123456789"}})
	logs := &logRecorder{}
	slogLogger(logs).Info("client", "c", c)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%T %v"} {
		s := fmt.Sprintf(verb, c)
		assertNoSecrets(t, s, testKey, "LIC-0123456789", fmt.Sprintf("%x", testKey))
		if verb != "%T %v" {
			assert.Contains(t, s, "api.example.test", verb)
		}
	}
	assertNoSecrets(t, logs.String(), testKey, "LIC-0123456789")
	assert.Equal(t, "<nil>", fmt.Sprintf("%v", (*Client)(nil)))
	// A struct embedding one prints its address only, and its own fields.
	wrapper := struct{ C *Client }{c}
	assertNoSecrets(t, fmt.Sprintf("%+v", wrapper), testKey)
}

// TestNoSecretInAnyProducedString drives every failure path with a server
// that echoes whatever it receives, then greps every string the package
// produces (error texts in every fmt form, every APIError field, url.Error
// URLs, log records) and everything foreign hosts received.
func TestNoSecretInAnyProducedString(t *testing.T) {
	t.Parallel()
	const (
		license   = "LIC/9 key+x"
		signature = "aSignature0123456789abcdef"
	)
	secrets := []string{testKey, license, url.PathEscape(license), url.QueryEscape(license),
		strings.ReplaceAll(url.QueryEscape(license), "+", "%20"), signature}

	foreign := &hopLog{}
	var apiURL string
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		foreign.record(r)
		// Echo the request line, every header and the query.
		var echo bytes.Buffer
		echo.WriteString(r.Method + " " + r.URL.String() + "\n")
		_ = r.Header.Write(&echo)
		w.Header().Set("X-Request-Id", r.URL.RawQuery)
		w.Header().Set("Content-Type", "text/plain")
		switch r.URL.Path {
		case "/back":
			http.Redirect(w, r, apiURL+"/v2/echo", http.StatusTemporaryRedirect)
		case "/hangup":
			hangUp(t, w)
		default:
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write(echo.Bytes()[:min(echo.Len(), 300)])
		}
	})
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var echo bytes.Buffer
		echo.WriteString(r.Method + " " + r.URL.String() + "\n")
		_ = r.Header.Write(&echo)
		w.Header().Set("X-Request-Id", r.Header.Get("X-Api-Key")+r.URL.EscapedPath())
		switch {
		case strings.HasSuffix(r.URL.Path, "/away"):
			http.Redirect(w, r, other.URL+"/obj?X-Amz-Signature="+signature, http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/roundtrip"):
			http.Redirect(w, r, other.URL+"/back", http.StatusPermanentRedirect)
		case strings.HasSuffix(r.URL.Path, "/badloc"):
			w.Header()["Location"] = []string{"https://x.example.test/%zz?s=" + signature}
			w.WriteHeader(http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/loop"):
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/hangup"):
			hangUp(t, w)
		case strings.HasSuffix(r.URL.Path, "/json"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			msg, _ := xml.Marshal(echo.String()) // any escaping will do
			_, _ = fmt.Fprintf(w, `{"message":%q,"code":%q}`, echo.String(), string(msg))
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(echo.Bytes()[:min(echo.Len(), 300)])
		}
	})
	apiURL = api.URL
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: api.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey,
		Secrets: []string{license}, MaxRetries: 1, Logger: slogLogger(logs)})

	licPath := PathJoin(license)
	q := url.Values{"lic": {license}, "k": {testKey}}
	calls := map[string]func() (*http.Response, error){
		"api 400 echo": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: "Authorize/" + licPath, Query: q})
		},
		"api 503 json echo": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: licPath + "/json", Query: q})
		},
		"api redirect away": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: licPath + "/away", Query: q})
		},
		"api roundtrip 308": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Method: "POST", Path: licPath + "/roundtrip", Query: q, Body: BytesBody([]byte("payload"), "text/plain")})
		},
		"api bad location": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: licPath + "/badloc", Query: q})
		},
		"api redirect loop": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: licPath + "/loop", Query: q})
		},
		"api hang-up": func() (*http.Response, error) {
			return c.Do(context.Background(), &Request{Path: licPath + "/hangup", Query: q})
		},
		"external 403 echo": func() (*http.Response, error) {
			return c.DoExternal(context.Background(), "PUT", other.URL+"/obj?X-Amz-Signature="+signature, nil, BytesBody([]byte("x"), ""))
		},
		"external hang-up": func() (*http.Response, error) {
			return c.DoExternal(context.Background(), "GET", other.URL+"/hangup?X-Amz-Signature="+signature, nil, Body{})
		},
		"invalid external": func() (*http.Response, error) {
			return c.DoExternal(context.Background(), "GET", "ftp://h/x?X-Amz-Signature="+signature, nil, Body{})
		},
		"cancelled context": func() (*http.Response, error) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return c.Do(ctx, &Request{Path: licPath, Query: q})
		},
		"decode JSON failure": func() (*http.Response, error) {
			return nil, c.DoJSON(context.Background(), &Request{Path: licPath + "/away", Query: q}, &struct{}{})
		},
	}
	for name, call := range calls {
		resp, err := call()
		if resp != nil {
			resp.Body.Close()
		}
		require.Error(t, err, name)
		produced := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%q", err)}
		for e := err; e != nil; e = unwrapOne(e) {
			produced = append(produced, e.Error(), fmt.Sprintf("%+v", e))
		}
		var ae *apierr.APIError
		if errorsAs(err, &ae) {
			produced = append(produced, ae.URL, ae.Message, ae.Code, ae.RequestID, string(ae.Body), fmt.Sprintf("%#v", *ae))
		}
		var ue *url.Error
		if errorsAs(err, &ue) {
			produced = append(produced, ue.URL, ue.Err.Error())
		}
		for _, s := range produced {
			assertNoSecrets(t, s, secrets...)
		}
	}
	assertNoSecrets(t, logs.String(), secrets...)
	assertNoSecrets(t, fmt.Sprintf("%+v %#v", c, c), secrets...)
	require.NotEmpty(t, foreign.all())
	for _, h := range foreign.all() {
		assertNoSecrets(t, h.text(), testKey, license, licPath)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// unwrapOne follows the first branch of an error tree.
func unwrapOne(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		if errs := u.Unwrap(); len(errs) > 0 {
			return errs[0]
		}
	}
	return nil
}

// The caller's CheckRedirect sees a cross-origin hop already without the
// credential or a Referer, so a policy that logs hops logs no secret.
func TestCallerCheckRedirectSeesStrippedHop(t *testing.T) {
	t.Parallel()
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	api := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/file", http.StatusFound)
	})
	var seen []string
	c := newClient(t, Options{BaseURL: api.URL, AuthHeader: "X-API-KEY", AuthValue: testKey, Secrets: []string{"LIC-0123456789"},
		HTTPClient: &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
			var b strings.Builder
			_ = req.Header.Write(&b)
			seen = append(seen, b.String())
			return nil
		}}})
	resp, err := c.Do(context.Background(), &Request{Path: "Authorize/LIC-0123456789"})
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, seen, 1)
	assertNoSecrets(t, seen[0], testKey, "LIC-0123456789")
}

func TestRequestSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		// Echo the query, as a service's error message might.
		fmt.Fprintf(w, `{"message": %q}`, r.URL.RawQuery)
	}))
	defer srv.Close()
	var logs bytes.Buffer
	c, err := New(Options{BaseURL: srv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: "k-123456789",
		MaxRetries: -1, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)

	hook := "https://user:pa55word-xyz@hooks.test/h?token=tok%2Fsecret+value&n=1"
	secrets := URLSecrets(hook)
	assert.Contains(t, secrets, "tok/secret value")
	assert.Contains(t, secrets, "pa55word-xyz")
	q := url.Values{"fileKey": {"f"}, "webhookUrl": {hook}}
	_, err = c.Do(context.Background(), &Request{Path: "pfc", Query: q, Secrets: secrets})
	require.Error(t, err)
	var apiErr *apierr.APIError
	require.ErrorAs(t, err, &apiErr)
	for _, s := range []string{err.Error(), apiErr.URL, apiErr.Message, string(apiErr.Body), logs.String()} {
		for _, secret := range []string{"secret", "pa55word"} {
			assert.NotContains(t, s, secret)
		}
	}
	assert.Equal(t, []string{"http://[::1"}, URLSecrets("http://[::1"), "an unparsable URL is a secret as a whole")
	assert.Nil(t, URLSecrets(""))
}

// A webhook URL's token is often in its path: it is redacted from the
// request's URL, error bodies and logs however it is echoed.
func TestWebhookPathTokenIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "Zq8XsecretPathToken77"
	hook := "https://hooks.example.com/services/T0/B0/" + token
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		// Echo the token alone, then the path, as a service's message might.
		u, _ := url.Parse(r.URL.Query().Get("webhookUrl"))
		fmt.Fprintf(w, `{"message": %q}`, "unreachable "+path.Base(u.Path)+" at "+u.Path)
	}))
	defer srv.Close()
	var logs bytes.Buffer
	c, err := New(Options{BaseURL: srv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: "k-123456789",
		MaxRetries: -1, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	q := url.Values{"fileKey": {"f"}, "webhookUrl": {hook}}
	_, err = c.Do(context.Background(), &Request{Path: "pfc", Query: q, Secrets: URLSecrets(hook)})
	var apiErr *apierr.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Contains(t, apiErr.URL, "webhookUrl=REDACTED")
	assert.Contains(t, apiErr.Message, "unreachable REDACTED at REDACTED")
	for _, s := range []string{err.Error(), apiErr.URL, apiErr.Message, string(apiErr.Body), logs.String()} {
		assert.NotContains(t, s, "secretPath")
		assert.NotContains(t, s, "/services/T0")
	}
}
