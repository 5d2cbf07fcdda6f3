package containersvc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one HTTP test double of this package: the Service's own Handler.
func startHTTP(t *testing.T, mutate func(*Config)) (*fixture, *httptest.Server) {
	f := newFixture(t, mutate)
	srv := httptest.NewServer(f.svc.Handler())
	t.Cleanup(srv.Close)
	return f, srv
}

func do(t *testing.T, method, url, contentType string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

func TestHTTPUploadCorrectDownload(t *testing.T) {
	t.Parallel()
	_, srv := startHTTP(t, func(c *Config) { c.SiteURL = "http://container.invalid" })
	base := srv.URL
	resp, body := do(t, http.MethodPut, base+"/pfc", "image/jpeg", jpegBytes(t, 80, 60))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var up UploadResponse
	require.NoError(t, json.Unmarshal(body, &up))

	resp, body = do(t, http.MethodGet, base+"/pfc/"+up.ImageKey+"?outputType=png&width=40", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var raw map[string]any
	require.NoError(t, json.Unmarshal(body, &raw))
	assert.Contains(t, raw, "corrected_url")
	assert.Contains(t, raw, "scene")
	u := raw["corrected_url"].(string)
	require.True(t, strings.HasPrefix(u, "http://container.invalid/output/"), u)

	resp, body = do(t, http.MethodGet, base+strings.TrimPrefix(u, "http://container.invalid"), "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	assert.True(t, bytes.HasPrefix(body, []byte("\x89PNG")))

	resp, body = do(t, http.MethodGet, base+"/version", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"version":"10.7.2.1269"`)
}

func TestHTTPErrorRows(t *testing.T) {
	t.Parallel()
	_, srv := startHTTP(t, nil)
	for _, tc := range []struct {
		method, path, ct string
		status           int
		code             string
	}{
		{http.MethodPut, "/pfc", "text/plain", 400, MsgNoContentType},
		{http.MethodGet, "/pfc", "", 400, MsgNoID},
		{http.MethodGet, "/pfc/", "", 400, MsgNoID},
		{http.MethodGet, "/pfc/..", "", 400, MsgInvalidID},
		{http.MethodGet, "/pfc/a%2Fb.jpg", "", 400, MsgInvalidID},
		{http.MethodGet, "/pfc/x/../../sdk_license", "", 400, MsgInvalidID},
		{http.MethodGet, "/pfc/nosuch.jpg", "", 400, MsgUnknownImageID},
		{http.MethodGet, "/pfc/nosuch.jpg?outputType=bmp", "", 400, MsgUnknownOutputType},
		{http.MethodGet, "/pfc/nosuch.jpg?outputQuality=39", "", 400, "invalid_parameter"},
		{http.MethodGet, "/pfc/nosuch.jpg?skipExifSoftware=x", "", 400, "unknown_parameter"},
		{http.MethodGet, "/pfc/nosuch.jpg?width=40&width=50", "", 400, "invalid_parameter"},
		{http.MethodGet, "/pfc/nosuch.jpg?width=%zz", "", 400, "invalid_parameter"},
		{http.MethodDelete, "/pfc/x.jpg", "", 405, "method_not_allowed"},
		{http.MethodPost, "/pfc", "image/png", 405, "method_not_allowed"},
		{http.MethodGet, "/output/..%2Fsdk_license%2Fpfc-mock.lic", "", 404, "not_found"},
		{http.MethodGet, "/elsewhere", "", 404, "not_found"},
		{http.MethodGet, "/version?verbose=1", "", 400, "unknown_parameter"},
		{http.MethodGet, "/version?%zz", "", 400, "invalid_parameter"},
		{http.MethodPost, "/version?x=1", "", 405, "method_not_allowed"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, tc.method, srv.URL+tc.path, tc.ct, []byte("x"))
			assert.Equal(t, tc.status, resp.StatusCode, string(body))
			var e struct {
				Status int    `json:"status"`
				Code   string `json:"code"`
			}
			require.NoError(t, json.Unmarshal(body, &e), string(body))
			assert.Equal(t, tc.status, e.Status)
			assert.Equal(t, tc.code, e.Code)
		})
	}
}

// TestHTTPVersionQuery: GET /version takes no query parameter; one is
// refused (400 unknown_parameter naming it, logged at debug) as on
// /pfc/{imageKey}, and an empty query is no parameter.
func TestHTTPVersionQuery(t *testing.T) {
	t.Parallel()
	f, srv := startHTTP(t, nil)
	resp, body := do(t, http.MethodGet, srv.URL+"/version?", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"version":"10.7.2.1269"`)

	resp, body = do(t, http.MethodGet, srv.URL+"/version?verbose=true", "", nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	var e struct{ Code, Parameter string }
	require.NoError(t, json.Unmarshal(body, &e), string(body))
	assert.Equal(t, "unknown_parameter", e.Code)
	assert.Equal(t, "verbose", e.Parameter)
	line := f.logs.find(t, MsgInvalidParameter)
	require.NotNil(t, line)
	assert.Equal(t, "verbose", line["parameter"])
}

func TestHTTPRequestIDsLogsAndLimits(t *testing.T) {
	t.Parallel()
	f, srv := startHTTP(t, func(c *Config) { c.MaxUploadBytes = 10 })

	resp, body := do(t, http.MethodGet, srv.URL+"/pfc/x.jpg?bogus=1", "", nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	assert.Regexp(t, `^req_[0-9a-f]{16}$`, resp.Header.Get("X-Request-Id"))
	line := f.logs.find(t, MsgInvalidParameter)
	require.NotNil(t, line)
	assert.Equal(t, "debug", line["level"])
	assert.Equal(t, "bogus", line["parameter"])
	assert.EqualValues(t, 400, line["status"])

	// A declared length above the limit is refused before the body is read.
	resp, body = do(t, http.MethodPut, srv.URL+"/pfc", "image/jpeg", bytes.Repeat([]byte("x"), 11))
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "Content-Length 11")
	require.NotNil(t, f.logs.find(t, MsgBodyTooLarge))
}

func TestHTTPClosedServiceAnswers503(t *testing.T) {
	t.Parallel()
	f, srv := startHTTP(t, nil)
	require.NoError(t, f.svc.WaitIdle(t.Context()))
	f.svc.Close()
	resp, body := do(t, http.MethodGet, srv.URL+"/version", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"code":"unavailable"`)
}
