package hosted

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// gzipped returns n zero bytes, gzip-compressed (a few KiB for a MiB).
func gzipped(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write(make([]byte, n))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// fileServer serves the download URLs of these tests over real HTTP, so
// that Go's transport (and its transparent gzip) is in the path.
func fileServer(t *testing.T) (*Client, string) {
	t.Helper()
	bomb := gzipped(t, 1<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bomb", func(w http.ResponseWriter, r *http.Request) {
		// A server that compresses whatever the client asked for.
		assert.Equal(t, "identity", r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	mux.HandleFunc("GET /sized/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(bytes.Repeat([]byte{'x'}, n))
	})
	mux.HandleFunc("GET /chunked/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		for range n {
			w.Write([]byte{'x'})
			w.(http.Flusher).Flush()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithMaxDownloadSize(100),
		pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	return c, srv.URL
}

func TestDownloadAsksForIdentityAndNeverInflates(t *testing.T) {
	t.Parallel()
	c, base := fileServer(t)
	c.maxDownload = 0
	var out bytes.Buffer
	n, err := c.Download(context.Background(), &Job{ID: "j", Status: StatusCompleted, CorrectedFile: base + "/bomb"}, &out)
	require.NoError(t, err)
	assert.Equal(t, int64(len(gzipped(t, 1<<20))), n, "the bytes on the wire, not 1 MiB of zeros")
	assert.Less(t, out.Len(), 64<<10)
}

func TestDownloadSizeCap(t *testing.T) {
	t.Parallel()
	c, base := fileServer(t)
	cases := []struct {
		path        string
		wantErr     bool
		wantWritten int64
	}{
		{"/sized/100", false, 100},
		{"/sized/101", true, 0}, // Content-Length says too much: nothing is written
		{"/chunked/100", false, 100},
		{"/chunked/150", true, 100},
		{"/bomb", true, 0}, // compressed bytes count, as announced
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			n, err := c.Download(context.Background(), &Job{ID: "j7", Status: StatusCompleted, CorrectedFile: base + tc.path}, &out)
			assert.Equal(t, tc.wantWritten, n)
			assert.Equal(t, int(tc.wantWritten), out.Len())
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
			var te *pfc.DownloadTooLargeError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, int64(100), te.Limit)
			assert.Equal(t, "j7", te.Name)
			assert.Equal(t, tc.wantWritten, te.Written)
		})
	}
}

func TestCorrectFileOverTheCapLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(in, bytes.Repeat([]byte("a"), 200), 0o600))

	apiMux := http.NewServeMux()
	root := http.NewServeMux()
	root.Handle("/v2/", http.StripPrefix("/v2", apiMux))
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	fakeService(t, apiMux, srv.URL, StatusCompleted)
	c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithMaxDownloadSize(100),
		WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	require.NoError(t, err)

	out := filepath.Join(dir, "out.jpg")
	_, err = c.CorrectFile(context.Background(), in, out, nil, nil)
	assert.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), testKey)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, "in.jpg", e.Name(), "nothing but the input is left")
	}
}

func TestWithMaxDownloadSizeRejectsNegative(t *testing.T) {
	t.Parallel()
	_, err := NewClient(testKey, pfc.WithBaseURL("https://x.test/v2"), pfc.WithMaxDownloadSize(-1))
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"MaxDownloadSize"}, ve.Fields())
}

// TestDownloadFileIsAtomic: DownloadFile writes the whole file or leaves
// the path as it was (an over-the-cap download, a job without a file),
// refuses an empty path, and leaves no temporary file behind.
func TestDownloadFileIsAtomic(t *testing.T) {
	t.Parallel()
	c, base := fileServer(t)
	t.Cleanup(c.CloseIdleConnections)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jpg")

	n, err := c.DownloadFile(t.Context(), &Job{ID: "j", Status: StatusCompleted, CorrectedFile: base + "/sized/100"}, path)
	require.NoError(t, err)
	assert.Equal(t, int64(100), n)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte{'x'}, 100), got)

	for _, job := range []*Job{
		{ID: "j", Status: StatusCompleted, CorrectedFile: base + "/chunked/150"},
		{ID: "j", Status: StatusFailed},
	} {
		n, err = c.DownloadFile(t.Context(), job, path)
		require.Error(t, err)
		assert.Zero(t, n)
		got, _ = os.ReadFile(path)
		assert.Len(t, got, 100, "the earlier file is untouched")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left")

	_, err = c.DownloadFile(t.Context(), &Job{ID: "j", Status: StatusCompleted, CorrectedFile: base + "/sized/1"}, "")
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}
