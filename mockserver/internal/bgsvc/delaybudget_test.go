package bgsvc

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneImageBudget returns a memory budget that holds one job of in (with the
// default options) but not two.
func oneImageBudget(t *testing.T, in []byte) int64 {
	t.Helper()
	s, _ := newService(t, nil)
	path := filepath.Join(t.TempDir(), "in.png")
	require.NoError(t, os.WriteFile(path, in, 0o600))
	opts, e := parseOptions("", nil, nil, "")
	require.Nil(t, e)
	cost, e := s.checkImage(path, opts)
	require.Nil(t, e)
	return cost + cost/2
}

// The processing delay keeps the job's place in the memory budget, as a
// slower engine would: with a budget of one image the second job stays
// queued until the first one's delay has passed (the fleet benchmark of
// the container clients relies on it).
func TestProcessingDelayHoldsTheMemoryBudget(t *testing.T) {
	t.Parallel()
	in := subjectPNG(t, 64, 48)
	budget := oneImageBudget(t, in)
	s, fc := newService(t, func(c *settings) {
		c.ProcessingDelay = time.Second
		c.MemoryBudget = budget
		c.Workers = 4
	})
	first := submit(t, s, in, SubmitRequest{FileName: "a.png"})
	waitIdle(t, s) // its engine returned; the delay runs on the clock
	second := submit(t, s, in, SubmitRequest{FileName: "b.png"})
	waitIdle(t, s) // the queued job waits for the delay's timer: idle
	assert.Equal(t, StatusQueued, check(t, s, second.ProcessID).Status, "the second job started beside the first one's delay")
	assert.Equal(t, StatusProcessing, check(t, s, first.ProcessID).Status)

	fc.Advance(time.Second) // first completes, second starts
	waitIdle(t, s)
	assert.Equal(t, StatusCompleted, check(t, s, first.ProcessID).Status)
	assert.Equal(t, StatusProcessing, check(t, s, second.ProcessID).Status)
	fc.Advance(time.Second)
	waitIdle(t, s)
	assert.Equal(t, StatusCompleted, check(t, s, second.ProcessID).Status)
}
