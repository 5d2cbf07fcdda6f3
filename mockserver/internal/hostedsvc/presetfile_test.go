package hostedsvc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJobsKeepThePresetFileTheyStartedWith: a job processes the preset
// file of its start, whatever happens to the preset while it waits; the
// cache tells preset contents apart; no job's link to its preset file
// outlives the job's processing.
func TestJobsKeepThePresetFileTheyStartedWith(t *testing.T) {
	t.Parallel()
	proc := &recordingProcessor{gate: make(chan struct{})}
	s, _ := newServiceWith(t, func(c *settings) { c.Deps.Processor = proc; c.Workers = 1 })
	warm := createPreset(t, s, "warm")
	putPreset(t, s, warm, []byte("v1"))
	imgA, imgB := uploadFile(t, s, pngBytes(t, 1)), uploadFile(t, s, pngBytes(t, 2))

	a := startJob(t, s, "preset=warm&fileKey="+imgA)
	b := startJob(t, s, "preset=warm&fileKey="+imgB) // queued behind a
	putPreset(t, s, warm, []byte("v2"))
	id, _ := signedQuery(t, warm)
	_, aerr := s.DeletePreset("k", id)
	require.Nil(t, aerr)
	proc.gate <- struct{}{}
	proc.gate <- struct{}{}
	for _, j := range []string{a, b} {
		rec, _ := jobRecord(t, s, j)
		require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
	}
	assert.Equal(t, [][]byte{[]byte("v1"), []byte("v1")}, proc.calls())

	// A preset of the same name and content: a cache hit. New content: a
	// miss, processed with the new file.
	warm = createPreset(t, s, "warm")
	putPreset(t, s, warm, []byte("v1"))
	rec, _ := jobRecord(t, s, startJob(t, s, "preset=warm&fileKey="+imgA))
	assert.Equal(t, "cache hit: result of job "+a, rec.StatusText)
	putPreset(t, s, warm, []byte("v3"))
	d := startJob(t, s, "preset=warm&fileKey="+imgA)
	proc.gate <- struct{}{}
	rec, _ = jobRecord(t, s, d)
	require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
	assert.NotContains(t, rec.StatusText, "cache hit")
	require.Len(t, proc.calls(), 3)
	assert.Equal(t, []byte("v3"), proc.calls()[2])

	entries, err := os.ReadDir(s.cfg.WorkDir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "ps-"), "a finished job's preset link is left: %s", e.Name())
	}
}

// TestFinishedJobsHoldNoPresetFile: jobs read their custom preset file
// only while processing; every job used to keep a copy (up to 1 MiB) for
// its whole retention, also after a cache hit. Not parallel: it measures
// the heap, which other tests would disturb.
func TestFinishedJobsHoldNoPresetFile(t *testing.T) {
	s, _ := newServiceWith(t, func(c *settings) {
		c.Deps.Processor = ProcessorFunc(func(_ context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
			if len(req.PresetData) != MaxPresetBytes {
				return nil, fmt.Errorf("got %d preset bytes", len(req.PresetData))
			}
			_, err := io.Copy(dst, src)
			return &JobResult{}, err
		})
	})
	putPreset(t, s, createPreset(t, s, "big"), bytes.Repeat([]byte("p"), MaxPresetBytes))
	key := uploadFile(t, s, pngBytes(t, 0))

	const n = 48 // jobs, each of which held 1 MiB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ids := make([]string, n)
	for i := range ids {
		// Half of them are processed, half are cache hits.
		ids[i] = startJob(t, s, fmt.Sprintf("preset=big&fileKey=%s&cache=%t", key, i%2 == 0))
	}
	for _, id := range ids {
		rec, _ := jobRecord(t, s, id)
		require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, grown, int64(n/4*MaxPresetBytes), "%d finished jobs hold %d MiB", n, grown>>20)
	runtime.KeepAlive(s)
}
