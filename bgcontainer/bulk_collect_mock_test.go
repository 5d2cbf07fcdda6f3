package bgcontainer_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestBulkCollectsRecordedJobs: a rerun of a manifest whose run stopped
// with jobs in flight collects them (wait, download, then removal) and
// starts none for them; a job the container no longer knows is redone
// (Redone), unless the output was written since it was submitted (the run
// stopped between the removal and the record): then it is done, no new
// job either.
func TestBulkCollectsRecordedJobs(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, &bgmock.Options{Activated: true})
	in, out := t.TempDir(), t.TempDir()
	rels := writeBulkImages(t, in, 5)
	src0 := filepath.Join(in, rels[0])
	img, err := os.ReadFile(src0)
	require.NoError(t, err)
	job, err := ts.Client.SubmitImage(t.Context(), bytes.NewReader(img), int64(len(img)), &bgcontainer.SubmitOptions{FileName: "img.jpg"})
	require.NoError(t, err)

	// rels[0]: its job in flight; rels[1]: a job the container forgot;
	// rels[2]: forgotten, but its output was written after the submission.
	const unknown = "6f0b9a4e-1c1d-4d4e-9f3a-2b7c8d9e0f11"
	at := time.Now().Add(-time.Minute).UTC()
	dst2 := filepath.Join(out, pngName(rels[2]))
	require.NoError(t, os.MkdirAll(filepath.Dir(dst2), 0o755))
	require.NoError(t, os.WriteFile(dst2, []byte("\x89PNG done before the crash"), 0o644))
	bulktest.WriteDirStarted(t, in, out, rels, pngName, at,
		map[string]any{"processId": job.ProcessID}, map[string]any{"processId": unknown}, map[string]any{"processId": unknown})

	before := ts.Mock.JobsStarted()
	rep, err := ts.Client.RemoveDir(t.Context(), in, out, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Done, "%+v", rep.Failures)
	assert.Equal(t, 2, rep.Collected, "rels[0] and rels[2]")
	assert.Equal(t, 1, rep.Redone, "rels[1]")
	assert.Equal(t, 3, rep.Started, "rels[1], [3] and [4]")
	assert.Equal(t, 3, ts.Mock.JobsStarted()-before)
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(out, pngName(rel)))
		require.NoError(t, err)
		assert.Equal(t, []byte("\x89PNG"), b[:4])
	}
	ts.WaitIdle()
	assert.Zero(t, ts.Mock.JobCount(), "the collected job is removed too")
}

// TestBulkDryRunSendsNothing: a dry run of each kind plans from the
// manifest and the files alone; its transport fails the test on any
// request.
func TestBulkDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	c, err := bgcontainer.NewClient("licence", pfc.WithBaseURL("http://127.0.0.1:1"), pfc.WithHTTPClient(&http.Client{Transport: bulktest.NoRequests{T: t}}))
	require.NoError(t, err)
	in, out := t.TempDir(), t.TempDir()
	writeBulkImages(t, in, 3)
	rep, err := c.RemoveDir(t.Context(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{DryRun: true})
	bulktest.CheckDryRun(t, out, 3, rep, err)
}

// TestBulkCancelKeepsRecordedJob: a bulk run cancelled while a job it
// recorded is still processing leaves that job on the container (the
// one-call flow would remove it) for the rerun, which collects and then
// removes it: one job for the image, none forgotten.
func TestBulkCancelKeepsRecordedJob(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ts := bgmock.Start(t, &bgmock.Options{Activated: true, Clock: fake, ProcessingDelay: time.Hour})
	in, out := t.TempDir(), t.TempDir()
	writeBulkImages(t, in, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := ts.Client.RemoveDir(ctx, in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{
		Flow: &pfc.FlowOptions{Wait: &pfc.WaitOptions{OnProgress: func(string, string) { cancel() }}},
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, ts.Mock.JobCount(), "the recorded job is left for the rerun")

	ts.Advance(time.Hour)
	ts.WaitIdle()
	rep, err := ts.Client.RemoveDir(t.Context(), in, out, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done, "%+v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Zero(t, rep.Redone)
	assert.Equal(t, 1, ts.Mock.JobsStarted())
	ts.WaitIdle()
	assert.Zero(t, ts.Mock.JobCount(), "removed once collected")
}
