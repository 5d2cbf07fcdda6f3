package hosted

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

const (
	testKey  = "sk-test-secret-key-1234"
	basePath = "/v2"
)

// mockClient returns a client whose HTTP traffic goes to a fresh httpmock
// transport.
func mockClient(t *testing.T) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(testKey,
		pfc.WithBaseURL("https://api.example.test/v2"),
		pfc.WithHTTPClient(&http.Client{Transport: mt}),
		pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond),
		WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
	)
	require.NoError(t, err)
	return c, mt
}

// expect registers a responder that also checks the API key header.
func expectAPI(t *testing.T, mt *httpmock.MockTransport, method, rawURL string, status int, body any) {
	t.Helper()
	mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"), "API calls carry the key")
		assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "pfc-go/"), "User-Agent")
		return httpmock.NewJsonResponse(status, body)
	})
}

// expectExternal registers a responder that fails if the API key is sent.
func expectExternal(t *testing.T, mt *httpmock.MockTransport, method, rawURL string, fn func(r *http.Request) (*http.Response, error)) {
	t.Helper()
	mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		assert.Empty(t, r.Header.Get("X-API-KEY"), "the API key must not reach %s", r.URL.Host)
		return fn(r)
	})
}

func TestNewClientValidation(t *testing.T) {
	t.Parallel()
	_, err := NewClient("")
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"apiKey", "BaseURL"}, ve.Fields())
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)

	// A blank key, or one with control characters, is refused as apiKey
	// (as bgcontainer refuses licenseKey), and never quoted.
	for _, key := range []string{"   ", "\t", "k3y-SECRET\r\nX-Evil: 1", "k3y-SECRET\x7f"} {
		_, err = NewClient(key, pfc.WithBaseURL("https://x.test/v2"))
		require.ErrorAs(t, err, &ve, "%q", key)
		assert.Equal(t, []string{"apiKey"}, ve.Fields(), "%q", key)
		assert.NotContains(t, err.Error(), "k3y-SECRET")
	}

	_, err = NewClient(testKey, pfc.WithBaseURL("https://x.test/v2"), WithPolling(pfc.WaitOptions{MinDelay: time.Second, MaxDelay: time.Millisecond}))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"MaxDelay"}, ve.Fields())
}

func jobJSON(id string, status JobStatus, extra map[string]any) map[string]any {
	m := map[string]any{"_id": id, "status": status, "statusText": "", "code": 0,
		"createdAt": "2026-11-22T10:00:00.000Z", "updatedAt": "2026-11-22T10:00:01.000Z"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// One base-URL convention: it ends with the API version, /v2.
func TestNewClientBaseURLEndsWithVersion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		base string
		ok   bool
	}{
		{"https://api.example.com/v2", true},
		{"https://api.example.com/v2/", true},
		{"https://gw.example.com/pfc/v2", true},
		{"https://api.example.com", false},
		{"https://api.example.com/", false},
		{"https://api.example.com/v1", false},
		{"https://api.example.com/v2/pfc", false},
	}
	for _, tc := range cases {
		_, err := NewClient(testKey, pfc.WithBaseURL(tc.base))
		if tc.ok {
			assert.NoError(t, err, tc.base)
			continue
		}
		var ve *pfc.ValidationError
		if assert.ErrorAs(t, err, &ve, tc.base) {
			assert.Equal(t, []string{"BaseURL"}, ve.Fields())
			assert.Contains(t, err.Error(), "must end with the API version /v2")
		}
	}
}
