package bgsvc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The processing delay keeps the job's place in the pixel budget, as a
// slower engine would: with a budget of one image the second job stays
// queued until the first one's delay has passed (the fleet benchmark of
// the container clients relies on it).
func TestProcessingDelayHoldsThePixelBudget(t *testing.T) {
	t.Parallel()
	s, fc := newService(t, func(c *Config) {
		c.ProcessingDelay = time.Second
		c.PixelBudget = 64 * 48
		c.Workers = 4
	})
	in := subjectPNG(t, 64, 48)
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
