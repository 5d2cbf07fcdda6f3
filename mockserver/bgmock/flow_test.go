package bgmock

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestBGRemoveBackgroundActivatesAndCleansUp: the one-call flow on an
// unactivated container applies the licence, writes the cut-out
// atomically and leaves no job behind.
func TestBGRemoveBackgroundActivatesAndCleansUp(t *testing.T) {
	t.Parallel()
	srv := Start(t, nil)
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.png")
	require.NoError(t, os.WriteFile(src, subject(t, 48, 36, boxColors[4]), 0o644))
	var seen []bgcontainer.JobStatus
	res, err := srv.Client.RemoveBackgroundFile(context.Background(), src, dst, &bgcontainer.SubmitOptions{Mode: bgcontainer.ModeGeneral, Preprocessing: bgcontainer.Bool(true),
		Postprocessing: bgcontainer.Bool(true), PreprocessingConfig: map[string]bool{"denoise": true}},
		&pfc.FlowOptions{Wait: &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond,
			OnProgress: func(_, status string) { seen = append(seen, bgcontainer.JobStatus(status)) }}})
	require.NoError(t, err)
	assert.True(t, res.Activated)
	assert.True(t, res.Job.PreprocessingEnabled)
	assert.Equal(t, "in.png", res.Check.OriginalName)
	require.NotNil(t, res.Removed)
	assert.Equal(t, bgcontainer.StatusCompleted, res.Removed.PreviousStatus)
	assert.Equal(t, 2, res.Removed.FilesDeleted)
	assert.Equal(t, bgcontainer.StatusCompleted, seen[len(seen)-1])
	data, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, res.Bytes, int64(len(data)))
	checkCutout(t, data, 48, 36, boxColors[4])
	assert.Zero(t, srv.Mock.JobCount())
}

// TestBGRemoveBackgroundRemovesAfterFailure: a failed job, a wait that
// runs out and a cancelled wait all end with the job removed from the
// container, and no output file.
func TestBGRemoveBackgroundRemovesAfterFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		width int
		delay time.Duration
		wait  func(cancel context.CancelFunc) *pfc.WaitOptions
		want  error
	}{
		{"job failed", failWidth, 0, nil, pfc.ErrJobFailed},
		{"max wait", 40, time.Hour, func(context.CancelFunc) *pfc.WaitOptions {
			return &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxWait: 20 * time.Millisecond}
		}, pfc.ErrWaitTimeout},
		{"cancelled", 40, time.Hour, func(cancel context.CancelFunc) *pfc.WaitOptions {
			return &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond,
				OnProgress: func(string, string) { cancel() }}
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The fake clock never moves: jobs with a delay stay
			// processing.
			fc := clock.NewFake(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
			srv := start(t, &Options{Activated: true, Clock: fc, ProcessingDelay: tt.delay}, hooks{remover: testRemover{}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			flow := &pfc.FlowOptions{}
			if tt.wait != nil {
				flow.Wait = tt.wait(cancel)
			}
			dst := filepath.Join(t.TempDir(), "out.png")
			src := filepath.Join(t.TempDir(), "in.png")
			require.NoError(t, os.WriteFile(src, subject(t, tt.width, 20, boxColors[0]), 0o644))
			res, err := srv.Client.RemoveBackgroundFile(ctx, src, dst, nil, flow)
			require.ErrorIs(t, err, tt.want)
			require.NotNil(t, res)
			require.NoError(t, res.RemoveErr)
			require.NotNil(t, res.Removed)
			assert.Equal(t, res.Job.ProcessID, res.Removed.ProcessID)
			assert.NoFileExists(t, dst)
			assert.Zero(t, srv.Mock.JobCount(), "no job left on the container")
		})
	}
}

// TestBGConcurrentRemovals: 60 one-call removals at once, each of its own
// image, all complete with distinct process ids and each result matches
// its own input (size, transparent backdrop, subject colour); no job is
// left.
func TestBGConcurrentRemovals(t *testing.T) {
	t.Parallel()
	srv := Start(t, &Options{Activated: true})
	const n = 60
	type result struct {
		id   string
		data []byte
		err  error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := subject(t, 40+i, 30+i%7, boxColors[i%len(boxColors)])
			var out bytes.Buffer
			res, err := srv.Client.RemoveBackground(context.Background(), bytes.NewReader(in), int64(len(in)), nil, &out, nil)
			results[i] = result{data: out.Bytes(), err: err}
			if res != nil {
				results[i].id = res.Job.ProcessID
				if err == nil && res.RemoveErr != nil {
					results[i].err = res.RemoveErr
				}
			}
		}()
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, r := range results {
		require.NoError(t, r.err, "removal %d", i)
		require.False(t, ids[r.id], "distinct process ids")
		ids[r.id] = true
		checkCutout(t, r.data, 40+i, 30+i%7, boxColors[i%len(boxColors)])
	}
	assert.Len(t, ids, n)
	assert.Zero(t, srv.Mock.JobCount())
}
