package transport

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

func TestSecretFormsCoverJSONEscapes(t *testing.T) {
	t.Parallel()
	key := `k<&>"\/é😀-1`
	c, err := New(Options{BaseURL: "http://h", Secrets: []string{key}})
	require.NoError(t, err)
	for _, form := range []string{
		key,
		`k\u003c\u0026\u003e\"\\/é😀-1`,          // Go, HTML-escaped
		`k<&>\"\\/é😀-1`,                         // Go, no HTML escaping
		`k<&>\"\\/\u00e9\ud83d\ude00-1`,         // Python ensure_ascii
		`k<&>\"\\\/é😀-1`,                        // "/" as "\/"
		"k%3C&%3E%22%5C%2F%C3%A9%F0%9F%98%80-1", // path segment
	} {
		assert.Equal(t, "a "+Redacted+" b", c.Redact("a "+form+" b"), form)
	}
}

// TestErrorBodyEchoingASecretAsJSON: a server that echoes the credential
// or a per-call secret inside a JSON error body, escaped the way its
// encoder escapes it, must not get it into the APIError.
func TestErrorBodyEchoingASecretAsJSON(t *testing.T) {
	t.Parallel()
	const apiKey, callSecret = `key<é>/1`, `tok&ü/2`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		// PHP's default json_encode (\uXXXX and "\/") for the key, Go's
		// HTML-escaped encoding for the call's secret, Python's ensure_ascii
		// for the code.
		_, _ = w.Write([]byte(`{"message":"bad key key<\u00e9>\/1 and tok\u0026ü/2","code":"key<\u00e9>/1"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: apiKey, MaxRetries: -1})
	require.NoError(t, err)
	_, err = c.Do(context.Background(), &Request{Path: "x", Secrets: []string{callSecret}})
	var ae *apierr.APIError
	require.True(t, errors.As(err, &ae), "%v", err)
	for _, s := range []string{err.Error(), ae.Message, ae.Code, string(ae.Body)} {
		assert.NotContains(t, s, "key<")
		assert.NotContains(t, s, `tok\u0026`)
		assert.Contains(t, s, Redacted)
	}
}

// TestBareQueryTokenIsRedacted: a pre-signed URL whose signature is a bare
// query token ("?<token>", no "=") keeps it out of errors like a value.
func TestBareQueryTokenIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "Zm9vYmFyYmF6cXV4LXNpZw"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("signature " + r.URL.RawQuery + " expired"))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL, MaxRetries: -1})
	require.NoError(t, err)
	_, err = c.DoExternal(context.Background(), http.MethodGet, srv.URL+"/out.jpg?"+token, nil, Body{})
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	for _, s := range []string{err.Error(), ae.URL, string(ae.Body)} {
		assert.NotContains(t, s, token)
	}
	assert.Contains(t, ae.URL, "out.jpg?"+Redacted)
	assert.Contains(t, URLSecrets("https://h/p?"+token), token)
}

// TestEncodedSecretsAreRedacted: a server echoing a secret in hex or
// base64 (both alphabets, padded or not) does not get it into an error.
func TestEncodedSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	const key = "k?>~ÿ-0123456789?~>" // base64 with "+" and "/" (URL: "-" and "_")
	c, err := New(Options{BaseURL: "http://h", Secrets: []string{key}})
	require.NoError(t, err)
	b := []byte(key)
	for _, enc := range []string{
		hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		url.QueryEscape(base64.StdEncoding.EncodeToString(b)),
		strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "/", `\/`),
	} {
		got := c.Redact(`{"echo":"` + enc + `"}`)
		assert.Equal(t, `{"echo":"`+Redacted+`"}`, got, enc)
	}
	// A secret shorter than minEncodedSecretLen keeps its encodings: they
	// would match ids and hashes by chance.
	c, err = New(Options{BaseURL: "http://h", Secrets: []string{"short"}})
	require.NoError(t, err)
	assert.Equal(t, "73686f7274", c.Redact("73686f7274"))
}

// TestCaseChangedSecretsAreRedacted: a server echoing a secret upper- or
// lower-cased, or with the hex digits of its escapes in the other case
// (%2f, as .NET's UrlEncode writes; \u003C) does not get it into an error.
func TestCaseChangedSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	const key = "QZJX-lic/ence+key=7d<6c5b4a"
	c, err := New(Options{BaseURL: "http://h", AuthHeader: "X-API-KEY", AuthValue: key})
	require.NoError(t, err)
	for _, echo := range []string{
		strings.ToUpper(key), strings.ToLower(key),
		"QZJX-lic%2fence%2bkey%3d7d%3c6c5b4a", "QZJX-lic%2Fence%2Bkey%3D7d%3C6c5b4a",
		strings.ToUpper(url.QueryEscape(key)), strings.ToLower(url.PathEscape(key)),
		`QZJX-lic/ence+key=7d\u003C6c5b4a`, `QZJX-lic\/ence+key=7d\u003C6c5b4a`,
	} {
		assert.Equal(t, "a "+Redacted+" b", c.Redact("a "+echo+" b"), echo)
	}
	// A short secret keeps its other cases: they would match words.
	c, err = New(Options{BaseURL: "http://h", Secrets: []string{"Short"}})
	require.NoError(t, err)
	assert.Equal(t, "SHORT short", c.Redact("SHORT short"))
}

// TestBase64SecretInsideLargerBase64: a secret encoded inside a larger
// base64 string, at each of the three offsets modulo 3, loses every
// character that encodes its bits alone; at most two characters on each
// side, mixing its bits with its neighbours', remain.
func TestBase64SecretInsideLargerBase64(t *testing.T) {
	t.Parallel()
	const key = "lk?>~0123456789abcdefghij~>?"
	c, err := New(Options{BaseURL: "http://h", Secrets: []string{key}})
	require.NoError(t, err)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for lead := 0; lead < 6; lead++ {
			prefix := strings.Repeat("u", lead)
			whole := enc.EncodeToString([]byte(prefix + key + ":tail?>"))
			lo, hi := (8*lead+5)/6, (8*lead+8*len(key))/6
			// What is left around REDACTED lies outside whole[lo:hi], the
			// characters that encode the secret's bits alone.
			got := c.Redact(whole)
			before, after, ok := strings.Cut(got, Redacted)
			require.True(t, ok, "lead %d: %s", lead, got)
			assert.True(t, strings.HasPrefix(whole[:lo], before), "lead %d: %s", lead, got)
			assert.True(t, strings.HasSuffix(whole[hi:], after), "lead %d: %s", lead, got)
		}
	}
	// Basic credentials: base64("user:" + key).
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + key))
	assert.Contains(t, c.Redact("Basic "+basic), Redacted)
}

// TestCallRedactorExtendsTheClients: a call with secrets of its own
// redacts them beside the Client's, whose matcher is kept from New.
func TestCallRedactorExtendsTheClients(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "http://h", AuthHeader: "X-API-KEY", AuthValue: "api-key-0123456789"})
	require.NoError(t, err)
	cl := &call{c: c, redactor: c.redactor, secrets: []string{"call-secret-987654"}, redactorStale: true}
	got := cl.redact("api-key-0123456789 " + hex.EncodeToString([]byte("call-secret-987654")))
	assert.Equal(t, Redacted+" "+Redacted, got)
	assert.Equal(t, "call-secret-987654", c.Redact("call-secret-987654"), "the Client's matcher is left alone")
}

// TestErrorBodyEchoingTheKeyInAnySpelling: a server echoing the key in a
// spelling other languages' encoders write (another case mix, Python's
// quote, JavaScript's encodeURI, every byte percent-escaped, every
// character \u-escaped, HTML references, quoted-printable and base64
// wrapped over MIME lines) does not get it into the APIError.
func TestErrorBodyEchoingTheKeyInAnySpelling(t *testing.T) {
	t.Parallel()
	const key = "Lic-7f3A9c2e/51b4+4d0e=9a7f@6b8c:1d2e 3f40"
	var every, unicodeEsc, entities strings.Builder
	for i := 0; i < len(key); i++ {
		fmt.Fprintf(&every, "%%%02x", key[i])
		fmt.Fprintf(&unicodeEsc, `\u%04X`, key[i])
		fmt.Fprintf(&entities, "&#%d;", key[i])
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	echoes := map[string]string{
		"case mix":             "lIC-7F3a9C2E/51B4+4D0E=9a7f@6b8c:1d2e 3f40",
		"Python quote":         "Lic-7f3A9c2e/51b4%2B4d0e%3D9a7f%406b8c%3A1d2e%203f40",
		"JavaScript encodeURI": "Lic-7f3A9c2e/51b4+4d0e=9a7f@6b8c:1d2e%203f40",
		"every byte escaped":   every.String(),
		"\\u-escaped":          unicodeEsc.String(),
		"HTML references":      entities.String(),
		"quoted-printable":     "Lic-7f3A9c2e/51b4+4d0e=3D9a7f@6b8c:1d2e=\r\n 3f40",
		"base64 wrapped":       b64[:20] + "\r\n" + b64[20:40] + "\r\n" + b64[40:],
	}
	for name, echo := range echoes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				body, _ := json.Marshal(map[string]string{"message": "bad key " + echo})
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			c, err := New(Options{BaseURL: srv.URL, AuthHeader: "X-API-KEY", AuthValue: key, MaxRetries: -1})
			require.NoError(t, err)
			_, err = c.Do(context.Background(), &Request{Path: "x"})
			var ae *apierr.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "bad key "+Redacted, ae.Message)
			for _, s := range []string{err.Error(), string(ae.Body)} {
				assert.NotContains(t, s, "7f3A9c2e")
				assert.NotContains(t, s, "f3A9")
				assert.NotContains(t, s, b64[8:20])
			}
		})
	}
}

// TestDecodeErrorIsShort: a 7 MiB number where the answer has a small
// one made a 7 MiB error string; the error quotes a short excerpt.
func TestDecodeErrorIsShort(t *testing.T) {
	t.Parallel()
	huge := "4" + strings.Repeat("2", 7<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"code":` + huge + `}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL, MaxRetries: -1})
	require.NoError(t, err)
	var out struct {
		Code int `json:"code"`
	}
	err = c.DoJSON(context.Background(), &Request{Path: "job"}, &out)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 1<<10, "%.300s", err.Error())
	assert.Contains(t, err.Error(), "decoding JSON response: json: cannot unmarshal number 4222")
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	assert.Less(t, len(te.Value), 64)
}

// TestLongURLIsQuotedShort: a URL the service answered (a corrected file's,
// a redirect's Location) is quoted in errors and logs redacted, then cut:
// a 200 KB path made a 200 KB error string, manifest record and log line.
func TestLongURLIsQuotedShort(t *testing.T) {
	t.Parallel()
	long := "/dl/" + strings.Repeat("a", 200<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, long+"?sig=0123456789abcdef", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	var logs strings.Builder
	c, err := New(Options{BaseURL: srv.URL, MaxRetries: -1,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	for _, target := range []string{srv.URL + long, srv.URL + "/hop"} {
		_, err = c.DoExternal(context.Background(), http.MethodGet, target, nil, Body{})
		require.Error(t, err)
		var ae *apierr.APIError
		require.ErrorAs(t, err, &ae)
		assert.Less(t, len(err.Error()), 1<<10)
		assert.Less(t, len(ae.URL), 1<<10)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		assert.Less(t, len(line), 2<<10, "%.200s", line)
	}
}
