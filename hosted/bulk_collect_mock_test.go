package hosted_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestCorrectDirCollectsRecordedJobs: a rerun of a manifest whose run
// stopped with jobs in flight waits for them and downloads their results,
// starting none for them; a job the service does not know (404) is
// redone, counted in Redone; the report sums the jobs' usage.
func TestCorrectDirCollectsRecordedJobs(t *testing.T) {
	t.Parallel()
	srv, c, _ := startInstantMock(t)
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 4)
	key, err := c.UploadFile(t.Context(), filepath.Join(in, rels[0]))
	require.NoError(t, err)
	o := hosted.NewCorrection()
	o.FileKey = key
	ref, err := c.StartJob(t.Context(), o)
	require.NoError(t, err)

	bulktest.WriteDirStarted(t, in, out, rels, nil, time.Time{},
		map[string]string{"jobId": ref.ID, "fileKey": key}, map[string]string{"jobId": "0123456789abcdef01234567", "fileKey": key})

	before := srv.Mock.JobsStarted()
	rep, err := c.CorrectDir(t.Context(), in, out, hosted.NewCorrection(), nil)
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Done, "%+v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 1, rep.Redone)
	assert.Equal(t, 3, rep.Started)
	assert.Equal(t, 3, srv.Mock.JobsStarted()-before, "no job for the collected file")
	assert.Equal(t, 4.0, rep.Usage["size:S"], "usage of every done file, the collected one included: %v", rep.Usage)
	for _, rel := range rels {
		assert.FileExists(t, filepath.Join(out, rel))
	}
}

// TestCorrectDirDryRunSendsNothing: a dry run plans from the manifest and
// the files alone, through a transport that fails the test on any request.
func TestCorrectDirDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	c, err := hosted.NewClient("key", pfc.WithBaseURL("http://127.0.0.1:1/v2"), pfc.WithHTTPClient(&http.Client{Transport: bulktest.NoRequests{T: t}}))
	require.NoError(t, err)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, 3)
	rep, err := c.CorrectDir(t.Context(), in, out, hosted.NewCorrection(), &pfc.BulkOptions[*hosted.Job]{DryRun: true, MaxStarts: 2})
	bulktest.CheckDryRun(t, out, 3, rep, err)
	assert.Equal(t, 1, rep.NotStarted, "the cap leaves one")
}
