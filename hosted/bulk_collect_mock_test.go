package hosted_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
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

	var lines []string
	for i, id := range []string{ref.ID, "0123456789abcdef01234567"} {
		job, _ := json.Marshal(map[string]string{"jobId": id, "fileKey": key})
		rec, _ := json.Marshal(map[string]any{"id": rels[i], "status": "started", "src": filepath.Join(in, rels[i]),
			"dst": filepath.Join(out, rels[i]), "job": json.RawMessage(job)})
		lines = append(lines, string(rec))
	}
	require.NoError(t, os.WriteFile(filepath.Join(out, ".pfc-bulk.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))

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
	c, err := hosted.NewClient("key", pfc.WithBaseURL("http://127.0.0.1:1/v2"), pfc.WithHTTPClient(&http.Client{Transport: failTransport{t}}))
	require.NoError(t, err)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, 3)
	rep, err := c.CorrectDir(t.Context(), in, out, hosted.NewCorrection(), &pfc.BulkOptions[*hosted.Job]{DryRun: true, MaxStarts: 2})
	require.NoError(t, err)
	require.NotNil(t, rep.Plan)
	assert.Len(t, rep.Plan.Process, 3)
	assert.Equal(t, 1, rep.NotStarted, "the cap leaves one")
	assert.NoFileExists(t, filepath.Join(out, ".pfc-bulk.jsonl"))
}

// failTransport fails its test on any request.
type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("a request during a dry run: %s %s", r.Method, r.URL.Path)
	return nil, errors.New("no requests in a dry run")
}
