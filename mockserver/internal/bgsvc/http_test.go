package bgsvc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// awkwardKey needs escaping as a path segment.
const awkwardKey = "lic/with space?"

// serve runs s.Handler on an httptest server.
func serve(t *testing.T, s *Service) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// do sends a request and returns the status and the decoded JSON body.
func do(t *testing.T, srv *httptest.Server, method, path string, body io.Reader, contentType string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &m), string(raw))
	}
	return resp, m
}

func TestHTTPRoutesMethodsAndQuery(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	srv := serve(t, s)
	id := httpx.NewUUID()
	tests := []struct {
		method, path string
		status       int
		code, param  string
		allow        string
	}{
		{"GET", "/Nope", 404, httpx.CodeNotFound, "", ""},
		{"GET", "/Status/x", 404, httpx.CodeNotFound, "", ""},
		{"GET", "/SubmitImage/x", 404, httpx.CodeNotFound, "", ""},
		{"POST", "/Status", 405, httpx.CodeMethodNotAllowed, "", "GET"},
		{"GET", "/SubmitImage", 405, httpx.CodeMethodNotAllowed, "", "POST"},
		{"DELETE", "/CheckImage/" + id, 405, httpx.CodeMethodNotAllowed, "", "GET"},
		{"GET", "/RemoveImage/" + id, 405, httpx.CodeMethodNotAllowed, "", "DELETE"},
		{"GET", "/Status?verbose=1", 400, httpx.CodeUnknownParameter, "verbose", ""},
		{"GET", "/CheckImage/" + id + "?x=1", 400, httpx.CodeUnknownParameter, "x", ""},
		{"POST", "/SubmitImage?preprocessing=true&preprocessing=false", 400, httpx.CodeInvalidParameter, "preprocessing", ""},
		{"POST", "/SubmitImage?mode=portrait", 400, httpx.CodeUnknownParameter, "mode", ""},
		{"GET", "/CheckImage/", 400, httpx.CodeInvalidParameter, ParamProcessID, ""},
		{"GET", "/CheckImage", 400, httpx.CodeInvalidParameter, ParamProcessID, ""},
		{"GET", "/DownloadImage/not-a-uuid", 400, httpx.CodeInvalidParameter, ParamProcessID, ""},
		{"DELETE", "/RemoveImage/" + id + "/x", 400, httpx.CodeInvalidParameter, ParamProcessID, ""},
		{"GET", "/CheckImage/" + id, 404, httpx.CodeNotFound, ParamProcessID, ""},
		{"GET", "/DownloadImage/" + id, 404, httpx.CodeNotFound, ParamProcessID, ""},
		{"DELETE", "/RemoveImage/" + id, 404, httpx.CodeNotFound, ParamProcessID, ""},
		{"GET", "/Authorize", 400, httpx.CodeMissingParameter, ParamLicenseKey, ""},
		{"GET", "/Authorize/", 400, httpx.CodeMissingParameter, ParamLicenseKey, ""},
		{"POST", "/SubmitImage", 422, httpx.CodeUnprocessable, ParamFile, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			resp, m := do(t, srv, tt.method, tt.path, nil, "")
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, tt.code, m["code"])
			assert.Equal(t, float64(tt.status), m["status"])
			if tt.param != "" {
				assert.Equal(t, tt.param, m["parameter"])
			}
			assert.Equal(t, tt.allow, resp.Header.Get("Allow"))
			assert.True(t, strings.HasPrefix(resp.Header.Get(httpx.RequestIDHeader), "req_"))
		})
	}
}

// TestHTTPLicenceKeyIsOneSegmentAndNeverLogged: a key holding "/" and a
// space, sent escaped, activates; neither it nor a wrong key reaches the
// logs.
func TestHTTPLicenceKeyIsOneSegmentAndNeverLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	s, err := New(Config{LicenseKey: awkwardKey, Workers: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, Deps{WorkDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	srv := serve(t, s)
	resp, m := do(t, srv, "GET", "/Authorize/wrong-key-xyz", nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, Unlicensed, m["status"])
	resp, _ = do(t, srv, "GET", "/Status", nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	resp, _ = do(t, srv, "GET", "/CheckImage/"+httpx.NewUUID(), nil, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "not activated yet")
	resp, m = do(t, srv, "GET", "/Authorize/lic%2Fwith%20space%3F", nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, Licensed, m["status"])
	assert.Equal(t, DefaultOrganization, m["licensed org"])
	assert.Regexp(t, `^\d{4}-\d{2}$`, m["expiration date"])
	resp, m = do(t, srv, "GET", "/Status", nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, DefaultModelVersion, m["model_version"])
	_, err = time.Parse(time.RFC3339, m["expiration date"].(string))
	assert.NoError(t, err)

	out := logs.String()
	assert.Contains(t, out, "/Authorize/REDACTED")
	for _, secret := range []string{awkwardKey, "lic%2Fwith%20space%3F", "lic/with", "wrong-key-xyz"} {
		assert.NotContains(t, out, secret)
	}
}

// TestHTTPDownloadWritesARawFinal102: while the job runs, GET
// /DownloadImage answers a final "HTTP/1.1 102 Processing" and closes the
// connection; once completed, the PNG.
func TestHTTPDownloadWritesARawFinal102(t *testing.T) {
	t.Parallel()
	s, fc := newService(t, func(c *settings) { c.ProcessingDelay = time.Second })
	srv := serve(t, s)
	r := submit(t, s, subjectPNG(t, 40, 30), SubmitRequest{})
	waitIdle(t, s)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /DownloadImage/"+r.ProcessID+" HTTP/1.1\r\nHost: bg\r\n\r\n")
	require.NoError(t, err)
	raw, err := io.ReadAll(conn) // the server closes the connection
	require.NoError(t, err)
	head := string(raw)
	assert.True(t, strings.HasPrefix(head, "HTTP/1.1 102 Processing\r\n"), head)
	assert.Contains(t, head, "Connection: close\r\n")
	assert.Contains(t, head, httpx.RequestIDHeader+": req_")
	assert.True(t, strings.HasSuffix(head, "\r\n\r\n"), "no body")

	fc.Advance(time.Second)
	waitIdle(t, s)
	resp, err := srv.Client().Get(srv.URL + "/DownloadImage/" + r.ProcessID)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, resp.ContentLength, int64(len(data)))
	_, err = bufio.NewReader(bytes.NewReader(data)).Peek(8)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG\r\n\x1a\n", string(data[:8]))
}

func TestHTTPSubmitCheckRemove(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	srv := serve(t, s)
	req := formRequest(t, part{name: "mode", value: "portrait"}, part{name: "file", filename: "me.png", value: string(subjectPNG(t, 30, 20))})
	resp, m := do(t, srv, "POST", "/SubmitImage?preprocessing=true&postprocessing=false", req.Body, req.Header.Get("Content-Type"))
	require.Equal(t, 200, resp.StatusCode, m)
	assert.Equal(t, "processing", m["status"])
	assert.Equal(t, "portrait", m["mode"])
	assert.Equal(t, "true", m["preprocessing_enabled"])
	assert.Equal(t, SubmitMessage, m["message"])
	id := m["process_id"].(string)
	waitIdle(t, s)
	resp, _ = do(t, srv, "GET", "/CheckImage/"+strings.ToUpper(id), nil, "")
	assert.Equal(t, 404, resp.StatusCode, "ids are compared as issued")
	resp, m = do(t, srv, "GET", "/CheckImage/"+id, nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "completed", m["status"])
	assert.Equal(t, "me.png", m["original_name"])
	assert.Contains(t, m, "processing_time")
	assert.NotContains(t, m, "error")
	resp, m = do(t, srv, "DELETE", "/RemoveImage/"+id, nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, map[string]any{"status": "deleted", "process_id": id, "files_deleted": float64(2), "previous_status": "completed"}, m)
}

// requestLog serves GET paths, one after the other, by a service whose
// debug log is text, and returns that log.
func requestLog(t *testing.T, paths ...string) string {
	t.Helper()
	var logs syncBuffer
	s, _ := newService(t, func(c *settings) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	h := s.Handler()
	for _, path := range paths {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil)) // logs before it returns
	}
	return logs.String()
}

// TestHTTPTriedKeysAreRedactedToTheEndOfThePath: the request log shows the
// decoded path, so a key tried may hold a space, a quote, a tab or an
// escaped "?"; everything after /Authorize/, in any case, is redacted to
// the end of the path. The redaction stopped at the first such character
// and missed /authorize/ (a 404, logged too).
func TestHTTPTriedKeysAreRedactedToTheEndOfThePath(t *testing.T) {
	t.Parallel()
	out := requestLog(t,
		"/Authorize/wrong%20secret-part",
		"/authorize/wrong-key",
		"/AUTHORIZE/x%22quoted-part",
		"/Authorize/x%09tabbed-part",
		"/Authorize/x%3Fquery-part%23hash-part",
		"/authorize/"+testKey,
	)
	for _, secret := range []string{"secret-part", "wrong-key", "quoted-part", "tabbed-part", "query-part", "hash-part", testKey} {
		assert.NotContains(t, out, secret)
	}
	for _, logged := range []string{"/Authorize/REDACTED", "/authorize/REDACTED", "/AUTHORIZE/REDACTED"} {
		assert.Contains(t, out, "path="+logged+" status=")
	}
}

// TestHTTPKeyInAnotherSpellingIsNotLogged: the request log shows the
// decoded path of every route, so a client that put the licence key, in
// another case or escaped twice, in an image route's path got it logged:
// only the raw and singly escaped key were redacted.
func TestHTTPKeyInAnotherSpellingIsNotLogged(t *testing.T) {
	t.Parallel()
	out := requestLog(t,
		"/CheckImage/"+strings.ToUpper(testKey),
		"/RemoveImage/Lic-0123456789-Secret",
		"/DownloadImage/lic%252D0123456789%252Dsecret",
	)
	out = strings.ToLower(out)
	assert.NotContains(t, out, "0123456789")
	assert.Equal(t, 3, strings.Count(out, "redacted"), "%s", out)
}

// TestHTTPNotFoundDoesNotEchoThePath: /authorize/{key} (the wrong case) is
// no route; its 404 quoted the path, and so the licence key.
func TestHTTPNotFoundDoesNotEchoThePath(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	h := s.Handler()
	for _, path := range []string{"/authorize/" + testKey, "/AUTHORIZE/" + url.PathEscape(awkwardKey), "/Nope/" + testKey} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusNotFound, rec.Code, path)
		body := rec.Body.String()
		assert.Contains(t, body, `"code":"`+httpx.CodeNotFound+`"`)
		assert.Contains(t, body, "no route for GET")
		for _, secret := range []string{testKey, "lic/with", url.PathEscape(awkwardKey), "lic%2F"} {
			assert.NotContains(t, body, secret, path)
		}
	}
}
