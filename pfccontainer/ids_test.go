package pfccontainer

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// TestUploadChecksTheImageKey: the imageKey of PUT /pfc is the
// container's, held to the shape of package serverid (stricter than
// ValidateImageKey, which also admits the file names of direct file
// mode): a key outside it is a *pfc.ResponseError naming imageKey, and a
// bulk run records the file failed without writing its output.
func TestUploadChecksTheImageKey(t *testing.T) {
	t.Parallel()
	img := testPNG(t)
	for _, key := range []string{"a b.jpg", "ключ.jpg", strings.Repeat("k", 129) + ".jpg", ".hidden.jpg", "..", "a/b.jpg", ""} {
		c, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.Method == http.MethodPut:
				_ = json.NewEncoder(w).Encode(map[string]string{"imageKey": key})
			case strings.HasPrefix(r.URL.Path, "/pfc/"):
				_ = json.NewEncoder(w).Encode(map[string]any{"corrected_url": "http://" + r.Host + "/output/x.png", "scene": 1})
			default:
				w.Header().Set("Content-Type", "image/png")
				_, _ = w.Write(img)
			}
		})
		_, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
		var re *pfc.ResponseError
		require.ErrorAs(t, err, &re, "%q", key)
		assert.Equal(t, "imageKey", re.Field)
		assert.Equal(t, string(epUpload), re.Endpoint)

		dir := t.TempDir()
		src, dst := filepath.Join(dir, "in.png"), filepath.Join(dir, "out", "in.png")
		require.NoError(t, os.WriteFile(src, img, 0o644))
		rep, err := c.CorrectAll(t.Context(), slices.Values([]pfc.BulkItem{{ID: "in.png", SrcPath: src, DstPath: dst}}), nil,
			&pfc.BulkOptions[*Correction]{Manifest: filepath.Join(dir, "out", "manifest.jsonl")})
		require.NoError(t, err)
		require.Equal(t, 1, rep.Failed, "%q", key)
		require.ErrorAs(t, rep.Failures[0].Err, &re)
		assert.Equal(t, "imageKey", re.Field)
		assert.NoFileExists(t, dst)
	}
	for _, key := range []string{"0123abcd.jpg", "0123456789abcdef0123456789abcdef.png", "K_1-2.jpeg", strings.Repeat("k", 124) + ".jpg"} {
		c, _ := hostile(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"imageKey": key})
		})
		got, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
		require.NoError(t, err, key)
		assert.Equal(t, key, got)
	}
}
