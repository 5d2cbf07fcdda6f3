package hosted

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queryRecorder serves the upload, /pfc and a completed job, and keeps
// the queries of GET /upload and GET /pfc.
type queryRecorder struct {
	mu          sync.Mutex
	upload, pfc []url.Values
}

func (q *queryRecorder) serve(t *testing.T, mux *http.ServeMux, srvURL string) {
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		q.upload = append(q.upload, r.URL.Query())
		q.mu.Unlock()
		_ = json.NewEncoder(w).Encode(UploadTicket{FileKey: "fk", UploadURL: srvURL + "/v2/store/fk?sig=s"})
	})
	mux.HandleFunc("PUT /store/fk", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /pfc", func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		q.pfc = append(q.pfc, r.URL.Query())
		q.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srvURL + "/v2/status/j"})
	})
	mux.HandleFunc("GET /status/j", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jobJSON("j", StatusCompleted, map[string]any{"correctedFile": srvURL + "/v2/files/j"}))
	})
	mux.HandleFunc("GET /files/j", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("out")) })
}

func (q *queryRecorder) last(t *testing.T) (upload, pfc url.Values) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	require.NotEmpty(t, q.upload)
	require.NotEmpty(t, q.pfc)
	return q.upload[len(q.upload)-1], q.pfc[len(q.pfc)-1]
}

// TestCorrectFileDerivesFileTypeFromThePath: CorrectFile sends fileType
// video, on /upload and on /pfc, for .mp4, .mov and .m4v paths in any
// case, image for the rest; an explicit FileType wins.
func TestCorrectFileDerivesFileTypeFromThePath(t *testing.T) {
	t.Parallel()
	c, mux, srv := setup(t)
	rec := &queryRecorder{}
	rec.serve(t, mux, srv.URL)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts *CorrectionOptions
		want FileType
	}{
		{"clip.mp4", nil, FileTypeVideo},
		{"CLIP.MOV", nil, FileTypeVideo},
		{"clip.mov", nil, FileTypeVideo},
		{"clip.m4v", nil, FileTypeVideo},
		{"photo.jpg", nil, FileTypeImage},
		{"photo.PNG", nil, FileTypeImage},
		{"noextension", nil, FileTypeImage},
		{"clip.mp4.jpg", nil, FileTypeImage},
		{"forced.mp4", NewCorrection().WithFileType(FileTypeImage), FileTypeImage},
		{"forced.jpg", NewCorrection().WithFileType(FileTypeVideo), FileTypeVideo},
	} {
		src := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(src, []byte("data of "+tc.name), 0o644))
		_, err := c.CorrectFile(t.Context(), src, filepath.Join(dir, "out-"+tc.name), tc.opts, nil)
		require.NoError(t, err, tc.name)
		up, pfc := rec.last(t)
		assert.Equal(t, string(tc.want), up.Get("fileType"), "%s: /upload", tc.name)
		if tc.want == FileTypeVideo {
			assert.Equal(t, "video", pfc.Get("fileType"), "%s: /pfc", tc.name)
		} else {
			assert.Contains(t, []string{"", "image"}, pfc.Get("fileType"), "%s: /pfc", tc.name)
		}
	}
}

// TestResizeModeWithoutASize: resize without a size parameter is accepted
// (the API uses it only when resizing is requested) and sent as given.
func TestResizeModeWithoutASize(t *testing.T) {
	t.Parallel()
	c, mux, srv := setup(t)
	rec := &queryRecorder{}
	rec.serve(t, mux, srv.URL)
	src := filepath.Join(t.TempDir(), "a.jpg")
	require.NoError(t, os.WriteFile(src, []byte("jpeg"), 0o644))
	o := NewCorrection().WithResizeMode(ResizeSmallDetails)
	require.NoError(t, o.ValidateForUpload())
	_, err := c.CorrectFile(t.Context(), src, src+".out", o, nil)
	require.NoError(t, err)
	_, pfc := rec.last(t)
	assert.Equal(t, "smallDetails", pfc.Get("resize"))
	for _, p := range []string{"width", "height", "long", "short", "scale"} {
		assert.Empty(t, pfc.Get(p), p)
	}
}
