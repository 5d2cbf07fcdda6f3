package hostedsvc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// TestRequestsAfterCloseAreUnavailable: once closed (and the data
// directory removed by its owner), every route answers 503 unavailable.
// /pfc used to answer 500 (linking the upload failed), /upload and POST
// /presets/ 200 with URLs nothing could use.
func TestRequestsAfterCloseAreUnavailable(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, func(c *settings) { c.Deps.Processor = &recordingProcessor{} })
	key := uploadFile(t, s, pngBytes(t, 0))
	job := startJob(t, s, "fileKey="+key)
	rec, _ := jobRecord(t, s, job)
	require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
	v, aerr := s.JobStatus("k", job)
	require.Nil(t, aerr)
	tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
	require.Nil(t, aerr)
	preset := createPreset(t, s, "p")

	s.Close()
	require.NoError(t, os.RemoveAll(s.cfg.WorkDir))
	for _, r := range []struct{ method, target, body string }{
		{http.MethodGet, "/v2/upload", ""},
		{http.MethodGet, "/v2/pfc?fileKey=" + key, ""},
		{http.MethodPost, "/v2/presets/", `{"name":"x"}`},
		{http.MethodGet, "/v2/presets", ""},
		{http.MethodGet, "/v2/status/" + job, ""},
		{http.MethodGet, v.CorrectedFile, ""},
		{http.MethodPut, tk.UploadURL, "data"},
		{http.MethodPut, preset, "data"},
		{http.MethodGet, "/nowhere", ""},
	} {
		req := httptest.NewRequest(r.method, "http://mock.test"+strings.TrimPrefix(r.target, "http://mock.test"), strings.NewReader(r.body))
		req.Header.Set(APIKeyHeader, "k")
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, "%s %s: %s", r.method, r.target, w.Body)
		var e httpx.Error
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
		assert.Equal(t, httpx.CodeUnavailable, e.Code)
	}
}

// TestStartJobDuringCloseIsUnavailable: a /pfc call that got past the
// handler's check as Close began fails to link its input in the data
// directory being removed: that is a 503, not a 500.
func TestStartJobDuringCloseIsUnavailable(t *testing.T) {
	t.Parallel()
	s, _ := newServiceWith(t, nil)
	key := uploadFile(t, s, pngBytes(t, 0))
	s.Close()
	require.NoError(t, os.RemoveAll(s.cfg.WorkDir))
	q, _ := url.ParseQuery("fileKey=" + key)
	_, aerr := s.StartJob("k", q, "http://mock.test")
	require.NotNil(t, aerr)
	assert.Equal(t, http.StatusServiceUnavailable, aerr.Status)
	assert.Equal(t, httpx.CodeUnavailable, aerr.Code)
}
