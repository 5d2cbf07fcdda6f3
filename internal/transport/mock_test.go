package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

const mockBase = "https://api.example.test/v2"

// newMockClient returns a Client whose requests go to a fresh httpmock
// transport (one per test, never the global one).
func newMockClient(t *testing.T, o Options) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	o.BaseURL = mockBase
	o.HTTPClient = &http.Client{Transport: mt}
	return newClient(t, o), mt
}

func TestMockAPICallExactRequest(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, Options{AuthHeader: "X-API-KEY", AuthValue: "the-key", UserAgent: "quickstart/1"})
	var got *http.Request
	mt.RegisterResponder(http.MethodGet, mockBase+"/pfc", func(r *http.Request) (*http.Response, error) {
		got = r
		return httpmock.NewJsonResponse(200, map[string]string{"statusEndpoint": mockBase + "/status/job1"})
	})
	var out struct {
		StatusEndpoint string `json:"statusEndpoint"`
	}
	q := url.Values{"fileKey": {"fk 1"}, "preset": {"School and Sports"}, "cache": {"false"}}
	require.NoError(t, c.DoJSON(context.Background(), &Request{Path: "pfc", Query: q}, &out))
	assert.Equal(t, mockBase+"/status/job1", out.StatusEndpoint)
	require.NotNil(t, got)
	assert.Equal(t, "cache=false&fileKey=fk%201&preset=School%20and%20Sports", got.URL.RawQuery)
	assert.Equal(t, "the-key", got.Header.Get("X-API-KEY"))
	assert.Equal(t, "pfc-go/0.1.0 quickstart/1", got.Header.Get("User-Agent"))
	assert.Equal(t, "application/json", got.Header.Get("Accept"))
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

func TestMockPOSTJSONAndExternalPUT(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, Options{AuthHeader: "X-API-KEY", AuthValue: "the-key"})
	var createBody []byte
	var createCT string
	mt.RegisterResponder(http.MethodPost, mockBase+"/presets/", func(r *http.Request) (*http.Response, error) {
		createBody, _ = io.ReadAll(r.Body)
		createCT = r.Header.Get("Content-Type")
		return httpmock.NewJsonResponse(200, map[string]string{"presetId": "p1", "uploadUrl": "https://bucket.example.test/p1.pcp?sig=abcdefghij"})
	})
	var putReq *http.Request
	var putBody []byte
	mt.RegisterResponder(http.MethodPut, "https://bucket.example.test/p1.pcp", func(r *http.Request) (*http.Response, error) {
		putReq = r
		putBody, _ = io.ReadAll(r.Body)
		return httpmock.NewStringResponse(200, ""), nil
	})

	body, err := JSONBody(map[string]string{"name": "Mine", "description": "d"})
	require.NoError(t, err)
	var created struct{ PresetID, UploadURL string }
	require.NoError(t, c.DoJSON(context.Background(), &Request{Method: http.MethodPost, Path: "presets/", Body: body}, &created))
	assert.JSONEq(t, `{"name":"Mine","description":"d"}`, string(createBody))
	assert.Equal(t, "application/json", createCT)

	preset := []byte("preset file contents")
	resp, err := c.DoExternal(context.Background(), http.MethodPut, created.UploadURL, nil, BytesBody(preset, "application/octet-stream"))
	require.NoError(t, err)
	resp.Body.Close()
	require.NotNil(t, putReq)
	assert.Empty(t, putReq.Header.Get("X-API-KEY"), "no API key on pre-signed uploads")
	assert.Equal(t, "sig=abcdefghij", putReq.URL.RawQuery)
	assert.Equal(t, int64(len(preset)), putReq.ContentLength)
	assert.Equal(t, preset, putBody)
	assert.Equal(t, "pfc-go/0.1.0", putReq.Header.Get("User-Agent"))
}

func TestMockConnectionErrorRetriesAndAPIError(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, Options{MaxRetries: 3})
	mt.RegisterResponder(http.MethodGet, mockBase+"/upload", httpmock.NewErrorResponder(errors.New("connection reset by peer")))
	_, err := c.Do(context.Background(), &Request{Path: "upload"})
	require.Error(t, err)
	assert.Equal(t, 4, mt.GetTotalCallCount())
	assert.Contains(t, err.Error(), "connection reset by peer")
	assert.Contains(t, err.Error(), "(4 attempts)")

	mt.RegisterResponder(http.MethodGet, mockBase+"/status/nope",
		httpmock.NewStringResponder(404, `{"message":"job not found"}`).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
	_, err = c.Do(context.Background(), &Request{Path: "status/nope"})
	assert.ErrorIs(t, err, apierr.ErrNotFound)
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "job not found", ae.Message)
	assert.Equal(t, 1, ae.Attempts)
}

func TestMockDeleteNoBody(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, Options{AuthHeader: "X-API-KEY", AuthValue: "k"})
	var got *http.Request
	mt.RegisterResponder(http.MethodDelete, mockBase+"/presets/p%2F1", func(r *http.Request) (*http.Response, error) {
		got = r
		return httpmock.NewStringResponse(200, `{}`), nil
	})
	require.NoError(t, c.DoJSON(context.Background(), &Request{Method: http.MethodDelete, Path: "presets/" + PathJoin("p/1")}, nil))
	require.NotNil(t, got)
	assert.Equal(t, "/v2/presets/p%2F1", got.URL.EscapedPath())
	assert.Equal(t, int64(0), got.ContentLength)
	assert.Empty(t, got.Header.Get("Content-Type"))
}
