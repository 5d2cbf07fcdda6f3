package transport

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

const testKey = "k3y-0123456789-SECRET"

// keyLog records, per path, the X-API-KEY each request carried.
type keyLog struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (k *keyLog) record(r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.seen == nil {
		k.seen = map[string][]string{}
	}
	k.seen[r.URL.Path] = append(k.seen[r.URL.Path], r.Header.Get("X-API-KEY"))
}

func (k *keyLog) get(path string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.seen[path]
}

func TestCrossOriginRedirectNeverCarriesTheKey(t *testing.T) {
	t.Parallel()
	keys := &keyLog{}
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		keys.record(r)
		switch r.URL.Path {
		case "/bounce-back":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		default:
			_, _ = io.WriteString(w, "file bytes")
		}
	})
	var api string
	apiSrv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		keys.record(r)
		switch r.URL.Path {
		case "/v2/status/1": // completed job: redirect to the file on another host
			http.Redirect(w, r, other.URL+"/file.jpg?X-Amz-Signature=sig0123456789", http.StatusFound)
		case "/v2/moved": // same origin: the key may follow
			http.Redirect(w, r, "/v2/here", http.StatusMovedPermanently)
		case "/v2/roundtrip": // leaves the origin and comes back
			http.Redirect(w, r, other.URL+"/bounce-back?to="+url.QueryEscape(api+"/v2/back"), http.StatusFound)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	})
	api = apiSrv.URL
	var userHops int
	c := newClient(t, Options{
		BaseURL: apiSrv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey,
		// The caller's CheckRedirect runs, and cannot re-add the key.
		HTTPClient: &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
			userHops++
			req.Header.Set("X-API-KEY", via[0].Header.Get("X-API-KEY"))
			return nil
		}},
	})

	for _, p := range []string{"status/1", "moved", "roundtrip"} {
		resp, err := c.Do(context.Background(), &Request{Path: p})
		require.NoError(t, err, p)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	assert.Equal(t, []string{testKey}, keys.get("/v2/status/1"))
	assert.Equal(t, []string{""}, keys.get("/file.jpg"), "the key must never reach another origin")
	assert.Equal(t, []string{testKey}, keys.get("/v2/moved"))
	assert.Equal(t, []string{testKey}, keys.get("/v2/here"), "same-origin hop keeps the key")
	assert.Equal(t, []string{""}, keys.get("/bounce-back"))
	assert.Equal(t, []string{""}, keys.get("/v2/back"), "a hop after leaving the origin stays without the key")
	assert.Equal(t, 4, userHops)
}

func TestNoFollowRedirects(t *testing.T) {
	t.Parallel()
	keys := &keyLog{}
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { keys.record(r) })
	apiSrv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/result.jpg", http.StatusFound)
	})
	c := newClient(t, Options{BaseURL: apiSrv.URL, AuthHeader: "X-API-KEY", AuthValue: testKey})
	resp, err := c.Do(context.Background(), &Request{Path: "status/1", NoFollowRedirects: true})
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, other.URL+"/result.jpg", resp.Header.Get("Location"))
	assert.Nil(t, keys.get("/result.jpg"), "not followed")

	// Without the flag the same client follows.
	resp2, err := c.Do(context.Background(), &Request{Path: "status/1"})
	require.NoError(t, err)
	resp2.Body.Close()
	assert.Equal(t, []string{""}, keys.get("/result.jpg"))
}

func TestDoExternalNeverSendsTheKey(t *testing.T) {
	t.Parallel()
	keys := &keyLog{}
	var gotUA string
	store := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		keys.record(r)
		gotUA = r.Header.Get("User-Agent")
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		}
	})
	// Even a pre-signed URL on the API's own origin gets no key.
	c := newClient(t, Options{BaseURL: store.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey})
	hdr := http.Header{"X-Api-Key": {testKey}, "X-Amz-Meta-A": {"1"}}
	resp, err := c.DoExternal(context.Background(), http.MethodPut, store.URL+"/redirect?sig=s1234567890", hdr,
		BytesBody([]byte("payload"), "image/jpeg"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, []string{""}, keys.get("/redirect"))
	assert.Equal(t, []string{""}, keys.get("/final"), "307 followed with the body, without credentials")
	assert.Equal(t, "pfc-go/0.1.0", gotUA)
	assert.Equal(t, []string{testKey}, hdr["X-Api-Key"], "the caller's header is not modified")
}

func TestRedactionEverywhere(t *testing.T) {
	t.Parallel()
	const (
		license   = "LIC/9 key+x" // escapes differently in paths and queries
		signature = "aSignature0123456789abcdef"
		token     = "tokenABCDEFGH"
	)
	secrets := []string{testKey, license, url.PathEscape(license), url.QueryEscape(license), signature, token}

	apiSrv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "rid-"+testKey)
		w.WriteHeader(http.StatusInternalServerError)
		// A careless server echoes what it got.
		_, _ = io.WriteString(w, `{"message":"bad key `+testKey+` on `+r.URL.EscapedPath()+` for `+license+`"}`)
	})
	store := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(r.URL.Query().Get("X-Amz-Signature")))
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code>`+
			`<Message>The request signature we calculated does not match</Message><SignatureProvided>`+b.String()+
			`</SignatureProvided></Error>`)
	})

	logs := &logRecorder{}
	c := newClient(t, Options{
		BaseURL: apiSrv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: testKey,
		Secrets: []string{license}, MaxRetries: 1, Logger: slogLogger(logs),
	})

	_, err := c.Do(context.Background(), &Request{Path: "Authorize/" + PathJoin(license), Query: url.Values{"l": {license}}})
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, apiSrv.URL+"/v2/Authorize/REDACTED?l=REDACTED", ae.URL)
	assert.Equal(t, "bad key REDACTED on /v2/Authorize/REDACTED for REDACTED", ae.Message)
	assert.Equal(t, "rid-REDACTED", ae.RequestID)
	assert.Equal(t, 2, ae.Attempts)
	for _, s := range []string{err.Error(), ae.URL, string(ae.Body), ae.Message, logs.String()} {
		assertNoSecrets(t, s, secrets...)
	}

	signed := store.URL + "/bucket/obj.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Security-Token=" +
		token + "&X-Amz-Signature=" + signature
	_, err = c.DoExternal(context.Background(), http.MethodPut, signed, nil, BytesBody([]byte("x"), "image/jpeg"))
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, apierr.ErrUnauthorized)
	assert.Equal(t, store.URL+"/bucket/obj.jpg?X-Amz-Algorithm=REDACTED&X-Amz-Expires=REDACTED&X-Amz-Security-Token=REDACTED&X-Amz-Signature=REDACTED", ae.URL)
	assert.Equal(t, "SignatureDoesNotMatch", ae.Code)
	assert.Contains(t, string(ae.Body), "<SignatureProvided>REDACTED</SignatureProvided>")
	assert.Contains(t, string(ae.Body), "SignatureDoesNotMatch", "short values and the rest of the body survive")
	for _, s := range []string{err.Error(), ae.URL, string(ae.Body), ae.Message, logs.String()} {
		assertNoSecrets(t, s, secrets...)
	}
	assert.Contains(t, logs.String(), "X-Amz-Signature=REDACTED")
	assert.Equal(t, "pfc: PUT "+ae.URL+": 403 Forbidden: The request signature we calculated does not match (code SignatureDoesNotMatch)", err.Error())
	assert.Equal(t, "REDACTED REDACTED REDACTED x", c.Redact(testKey+" "+license+" "+url.PathEscape(license)+" x"))
}
