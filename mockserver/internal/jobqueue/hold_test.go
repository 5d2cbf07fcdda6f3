package jobqueue

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

// A job that holds its budget past its run keeps its pixels in use, and
// the next job that does not fit beside it (even an oversize one, which
// otherwise runs when nothing runs) starts only once it is released.
func TestHoldBudgetKeepsPlaceUntilRelease(t *testing.T) {
	t.Parallel()
	q, err := New(Config{Workers: 2, Budget: 10})
	require.NoError(t, err)
	defer q.Close()

	var a *Job
	ready := make(chan struct{})
	releaseCh := make(chan func(), 1)
	a, err = q.Submit(10, func(context.Context) {
		<-ready
		releaseCh <- a.HoldBudget()
	})
	require.NoError(t, err)
	close(ready)
	release := recv(t, releaseCh)
	recv(t, a.Done())
	assert.Equal(t, int64(10), q.Stats().InUse, "the held budget was given back when run returned")

	ran := make(chan struct{})
	b, err := q.Submit(20, func(context.Context) { close(ran) })
	require.NoError(t, err)
	assert.Equal(t, Queued, b.State())
	release()
	release() // a second call does nothing
	recv(t, ran)
	recv(t, b.Done())
	assert.Equal(t, int64(0), q.Stats().InUse)
}

// Released before run returns, the budget is given back once, when the
// worker is done.
func TestHoldBudgetReleasedDuringRun(t *testing.T) {
	t.Parallel()
	q, err := New(Config{Workers: 1, Budget: 10})
	require.NoError(t, err)
	defer q.Close()
	var a *Job
	start := make(chan struct{})
	a, err = q.Submit(7, func(context.Context) {
		<-start
		a.HoldBudget()()
	})
	require.NoError(t, err)
	close(start)
	recv(t, a.Done())
	assert.Equal(t, int64(0), q.Stats().InUse)
}

// Jobs queued behind budget that only a hold keeps (nothing runs) wait for
// a timer: the Tracker is idle, so a fake clock can be advanced; once the
// budget is released they count again until they end.
func TestHoldBudgetParksQueuedJobsForTheTracker(t *testing.T) {
	t.Parallel()
	tr := activity.New(clock.NewFake(time.Unix(0, 0)))
	q, err := New(Config{Workers: 2, Budget: 10, Tracker: tr})
	require.NoError(t, err)
	defer q.Close()
	idle := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, tr.WaitIdle(ctx))
	}
	var a *Job
	releaseCh := make(chan func(), 1)
	start := make(chan struct{})
	a, err = q.Submit(10, func(context.Context) { <-start; releaseCh <- a.HoldBudget() })
	require.NoError(t, err)
	close(start)
	release := recv(t, releaseCh)
	recv(t, a.Done())
	gate := make(chan struct{})
	b, err := q.Submit(10, func(context.Context) { <-gate })
	require.NoError(t, err)
	c, err := q.Submit(1, func(context.Context) {})
	require.NoError(t, err)
	idle() // b and c are parked
	assert.Equal(t, Queued, b.State())
	require.True(t, c.Cancel()) // a parked job's count is not given back twice
	release()
	close(gate)
	recv(t, b.Done())
	idle()
}
