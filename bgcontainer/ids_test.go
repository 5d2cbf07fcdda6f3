package bgcontainer

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// uuidKey is a licence key shaped like a UUID, as many licence keys are:
// it passes the process_id shape check.
const uuidKey = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

// TestSubmitRefusesTheLicenceKeyAsProcessID: a container that answers
// SubmitImage with the client's licence key as process_id (in either
// case: both are UUIDs) gets a *pfc.ResponseError naming process_id,
// never quoting the key; a bulk run records the file failed, writes no
// output and no key into its manifest, and never addresses the key as a
// job.
func TestSubmitRefusesTheLicenceKeyAsProcessID(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 4, 4)
	for _, id := range []string{uuidKey, strings.ToUpper(uuidKey)} {
		f := newFixture(t, uuidKey)
		f.on(t, http.MethodPost, "/SubmitImage", func(*http.Request) (*http.Response, error) {
			return httpmock.NewJsonResponse(200, map[string]string{"status": "processing", "process_id": id, "mode": "portrait",
				"preprocessing_enabled": "true", "message": "Image processing started"})
		})
		// Were the id taken, the job would complete and its PNG be written.
		f.on(t, http.MethodGet, "/CheckImage/"+id, func(*http.Request) (*http.Response, error) {
			return httpmock.NewJsonResponse(200, completed)
		})
		f.on(t, http.MethodGet, "/DownloadImage/"+id, pngResponder(t, img))
		f.on(t, http.MethodDelete, "/RemoveImage/"+id, func(*http.Request) (*http.Response, error) {
			return httpmock.NewJsonResponse(200, map[string]any{"status": "deleted", "process_id": id, "files_deleted": 2, "previous_status": "completed"})
		})

		dir := t.TempDir()
		src, dst := filepath.Join(dir, "in.png"), filepath.Join(dir, "out", "in.png")
		require.NoError(t, os.WriteFile(src, img, 0o644))
		man := filepath.Join(dir, "out", "manifest.jsonl")
		rep, err := f.c.RemoveAll(context.Background(), slices.Values([]pfc.BulkItem{{ID: "in.png", SrcPath: src, DstPath: dst}}), nil,
			&pfc.BulkOptions[*Result]{Manifest: man})
		require.NoError(t, err)
		require.Equal(t, 1, rep.Failed, id)
		var re *pfc.ResponseError
		require.ErrorAs(t, rep.Failures[0].Err, &re)
		assert.Equal(t, "process_id", re.Field)
		assert.NoFileExists(t, dst)
		assert.Zero(t, f.calls(http.MethodGet, "/CheckImage/"+id), "the key is never addressed as a job")
		data, err := os.ReadFile(man)
		require.NoError(t, err)
		f.noSecret(t, uuidKey, string(data), errText(rep.Failures[0].Err))
		f.noSecret(t, strings.ToUpper(uuidKey), string(data), errText(rep.Failures[0].Err))
	}
}
