package hosted

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// hostileService serves the hosted API on mux with a GET /pfc whose
// statusEndpoint ends in jobID (escaped as a path segment), a job that is
// complete at once and its file: a client that takes the id reaches the
// end and writes the result. It returns the count of /status requests.
func hostileService(t *testing.T, mux *http.ServeMux, srvURL, jobID string) *atomic.Int32 {
	var polls atomic.Int32
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "fk1", UploadURL: srvURL + "/v2/store/fk1?sig=abc"})
	})
	mux.HandleFunc("PUT /store/{key}", func(_ http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
	mux.HandleFunc("GET /pfc", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srvURL + "/v2/status/" + strings.ReplaceAll(jobID, " ", "%20")})
	})
	mux.HandleFunc("GET /status/{id...}", func(w http.ResponseWriter, r *http.Request) {
		polls.Add(1)
		json.NewEncoder(w).Encode(jobJSON(r.PathValue("id"), StatusCompleted, map[string]any{"correctedFile": srvURL + "/v2/files/f"}))
	})
	mux.HandleFunc("GET /files/f", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("corrected")) })
	return &polls
}

// keySpellings are ways a server may spell the API key.
func keySpellings(key string) []string {
	return []string{key, strings.ToUpper(key), hex.EncodeToString([]byte(key)), base64.StdEncoding.EncodeToString([]byte(key)),
		base64.RawURLEncoding.EncodeToString([]byte(key))}
}

// TestStartJobChecksTheJobID: the job id taken from statusEndpoint is held
// to the documented shape (see package serverid) and must not hold the
// API key: otherwise a *pfc.ResponseError naming statusEndpoint, which
// never quotes the key.
func TestStartJobChecksTheJobID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bad := map[string]string{
		"too long":       strings.Repeat("a", 129),
		"space":          "a b",
		"non-ASCII":      "ключ",
		"dot-dot":        "..",
		"leading dot":    ".hidden",
		"key in an id":   "job-" + testKey,
		"key in a query": "j1?k=" + testKey,
		"escaped slash":  "j%2F1",
		"escaped dots":   "%2e%2e",
		"bad escape":     "j%zz",
	}
	for i, s := range keySpellings(testKey) {
		bad["key spelling "+string(rune('0'+i))] = s
	}
	for name, id := range bad {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mux, srv := setup(t)
			polls := hostileService(t, mux, srv.URL, id)
			_, err := c.StartJob(ctx, NewCorrection().WithFileKey("fk1"))
			var re *pfc.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, "statusEndpoint", re.Field)
			assert.Equal(t, "GET /pfc", re.Endpoint)
			assert.ErrorIs(t, err, pfc.ErrInvalidResponse)
			assert.Equal(t, c.http.Redact(err.Error()), err.Error(), "no key in the error")
			assert.Zero(t, polls.Load())
		})
	}
	for _, id := range []string{"j1", "job-42", "0123456789abcdef01234567", "A_b.c-9", strings.Repeat("f", 128)} {
		c, mux, srv := setup(t)
		hostileService(t, mux, srv.URL, id)
		ref, err := c.StartJob(ctx, NewCorrection().WithFileKey("fk1"))
		require.NoError(t, err, id)
		assert.Equal(t, id, ref.ID)
	}
}

// TestBulkNeverWritesAKeyFromTheServer: a service that answers GET /pfc
// with the API key as the job id gets the file failed with a
// *pfc.ResponseError naming statusEndpoint; no job is polled, no output
// written, and the manifest holds the key in no spelling.
func TestBulkNeverWritesAKeyFromTheServer(t *testing.T) {
	t.Parallel()
	for _, id := range keySpellings(testKey) {
		c, mux, srv := setup(t)
		polls := hostileService(t, mux, srv.URL, id)
		dir := t.TempDir()
		src, dst := filepath.Join(dir, "in.jpg"), filepath.Join(dir, "out", "in.jpg")
		require.NoError(t, os.WriteFile(src, []byte("raw"), 0o644))
		man := filepath.Join(dir, "out", "manifest.jsonl")
		rep, err := c.CorrectAll(context.Background(), slices.Values([]pfc.BulkItem{{ID: "in.jpg", SrcPath: src, DstPath: dst}}), nil,
			&pfc.BulkOptions[*Job]{Manifest: man})
		require.NoError(t, err)
		require.Equal(t, 1, rep.Failed, id)
		var re *pfc.ResponseError
		require.True(t, errors.As(rep.Failures[0].Err, &re), "%v", rep.Failures[0].Err)
		assert.Equal(t, "statusEndpoint", re.Field)
		assert.Zero(t, polls.Load(), "no job polled")
		_, statErr := os.Stat(dst)
		assert.ErrorIs(t, statErr, os.ErrNotExist, "no output")
		data, err := os.ReadFile(man)
		require.NoError(t, err)
		for _, form := range keySpellings(testKey) {
			assert.NotContains(t, string(data), form)
		}
		assert.Equal(t, c.http.Redact(string(data)), string(data))
	}
}
