package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

func TestSecretFormsCoverJSONEscapes(t *testing.T) {
	t.Parallel()
	key := `k<&>"\/é😀-1`
	forms := secretForms(key)
	for _, want := range []string{
		key,
		`k\u003c\u0026\u003e\"\\/é😀-1`,          // Go, HTML-escaped
		`k<&>\"\\/é😀-1`,                         // Go, no HTML escaping
		`k<&>\"\\/\u00e9\ud83d\ude00-1`,         // Python ensure_ascii
		`k<&>\"\\\/é😀-1`,                        // "/" as "\/"
		"k%3C&%3E%22%5C%2F%C3%A9%F0%9F%98%80-1", // path segment
	} {
		assert.Contains(t, forms, want)
	}
	assert.Nil(t, newReplacer(""))
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
