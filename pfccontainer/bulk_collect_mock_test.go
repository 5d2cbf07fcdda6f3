package pfccontainer_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestCorrectDirCollectsRecordedImages: a rerun of a manifest whose run
// stopped after uploads corrects and downloads the recorded images
// without uploading them again; an image the container no longer has
// (swept from input/) and one recorded on a replica the client does not
// have are redone, counted in Redone.
func TestCorrectDirCollectsRecordedImages(t *testing.T) {
	t.Parallel()
	ts, c, _ := start(t, nil)
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 5)
	var keys []string
	for _, rel := range rels[:3] {
		key, err := c.UploadFile(t.Context(), filepath.Join(in, rel))
		require.NoError(t, err)
		keys = append(keys, key)
	}
	require.NoError(t, os.Remove(filepath.Join(ts.Mock.InputDir(), keys[1])), "swept")
	replicas := []string{"", "", "http://gone.invalid:8000"}
	var jobs []any
	for i, key := range keys {
		jobs = append(jobs, map[string]string{"imageKey": key, "replica": replicas[i]})
	}
	bulktest.WriteDirStarted(t, in, out, rels, nil, time.Time{}, jobs...)

	before := ts.Mock.JobsStarted()
	rep, err := c.CorrectDir(t.Context(), in, out, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Done, "%+v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 2, rep.Redone)
	assert.Equal(t, 4, rep.Started)
	assert.Equal(t, 4, ts.Mock.JobsStarted()-before, "no upload for the collected image")
	for _, rel := range rels {
		assert.FileExists(t, filepath.Join(out, rel))
	}
}

// TestCorrectDirDryRunSendsNothing: a dry run plans from the manifest and
// the files alone, through a transport that fails the test on any request.
func TestCorrectDirDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	c, err := pfccontainer.NewClient(pfc.WithBaseURL("http://127.0.0.1:1"), pfc.WithHTTPClient(&http.Client{Transport: bulktest.NoRequests{T: t}}))
	require.NoError(t, err)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, 3)
	rep, err := c.CorrectDir(t.Context(), in, out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{DryRun: true})
	bulktest.CheckDryRun(t, out, 3, rep, err)
}
