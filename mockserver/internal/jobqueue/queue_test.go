package jobqueue

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// events is a log of what the jobs did, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// recv waits for ch; the timeout is a safety net for a broken queue only
// (a deadlock), no assertion depends on it.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("timed out: the queue is stuck")
	}
	var zero T
	return zero
}

// gated returns a job function that logs its start, signals started,
// waits for release (or its context), and logs its end.
func gated(ev *events, name string, started chan<- string, release <-chan struct{}) func(context.Context) {
	return func(ctx context.Context) {
		ev.add(name + " start")
		if started != nil {
			started <- name
		}
		select {
		case <-release:
			ev.add(name + " end")
		case <-ctx.Done():
			ev.add(name + " cancelled")
		}
	}
}

func newQueue(t *testing.T, cfg Config) *Queue {
	t.Helper()
	q, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(q.Close)
	return q
}

func TestConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{Workers: 0}, {Workers: -1}, {Workers: 1, Budget: -1}} {
		_, err := New(cfg)
		require.ErrorIs(t, err, ErrInvalidConfig)
	}
	assert.Equal(t, "queued", Queued.String())
	assert.Equal(t, "processing", Processing.String())
	assert.Equal(t, "done", Done.String())
	assert.Equal(t, "cancelled", Cancelled.String())
	assert.Equal(t, "State(9)", State(9).String())
}

func TestFIFOOrder(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 1})
	var ev events
	started := make(chan string, 1)
	release := make(chan struct{})
	blocker, err := q.Submit(0, gated(&ev, "blocker", started, release))
	require.NoError(t, err)
	recv(t, started)
	var jobs []*Job
	for _, name := range []string{"a", "b", "c", "d"} {
		j, err := q.Submit(0, func(context.Context) { ev.add(name) })
		require.NoError(t, err)
		assert.Equal(t, Queued, j.State())
		jobs = append(jobs, j)
	}
	assert.Equal(t, Processing, blocker.State())
	assert.Equal(t, Stats{Queued: 4, Processing: 1}, q.Stats())
	close(release)
	for _, j := range jobs {
		recv(t, j.Done())
		assert.Equal(t, Done, j.State())
	}
	assert.Equal(t, []string{"blocker start", "blocker end", "a", "b", "c", "d"}, ev.get())
}

func TestCancelQueuedJob(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 1})
	var ev events
	started := make(chan string, 1)
	release := make(chan struct{})
	_, err := q.Submit(0, gated(&ev, "blocker", started, release))
	require.NoError(t, err)
	recv(t, started)
	queued, err := q.Submit(0, func(context.Context) { ev.add("queued ran") })
	require.NoError(t, err)
	after, err := q.Submit(0, func(context.Context) { ev.add("after") })
	require.NoError(t, err)

	assert.True(t, queued.Cancel())
	assert.Equal(t, Cancelled, queued.State())
	recv(t, queued.Done())
	assert.False(t, queued.Cancel(), "a cancelled job stays cancelled")
	close(release)
	recv(t, after.Done())
	assert.Equal(t, []string{"blocker start", "blocker end", "after"}, ev.get())
	assert.False(t, after.Cancel(), "an ended job cannot be cancelled")
}

func TestCancelRunningJob(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 2})
	var ev events
	started := make(chan string, 1)
	j, err := q.Submit(0, gated(&ev, "job", started, nil))
	require.NoError(t, err)
	recv(t, started)
	assert.True(t, j.Cancel())
	recv(t, j.Done())
	assert.Equal(t, Done, j.State())
	assert.Equal(t, []string{"job start", "job cancelled"}, ev.get())
	assert.Equal(t, Stats{}, q.Stats())
}

func TestCloseCancelsEverythingAndWaits(t *testing.T) {
	t.Parallel()
	tracker := activity.New(clock.Real())
	q, err := New(Config{Workers: 1, Tracker: tracker})
	require.NoError(t, err)
	var ev events
	started := make(chan string, 1)
	running, err := q.Submit(0, gated(&ev, "running", started, nil))
	require.NoError(t, err)
	recv(t, started)
	queued, err := q.Submit(0, func(context.Context) { ev.add("queued ran") })
	require.NoError(t, err)

	q.Close()
	// Close has waited: the running job's function has returned.
	assert.Equal(t, []string{"running start", "running cancelled"}, ev.get())
	assert.Equal(t, Done, running.State())
	assert.Equal(t, Cancelled, queued.State())
	recv(t, queued.Done())
	recv(t, running.Done())
	_, err = q.Submit(0, func(context.Context) {})
	require.ErrorIs(t, err, ErrClosed)
	q.Close() // idempotent
	require.NoError(t, tracker.WaitIdle(context.Background()), "every job's Begin was matched")
	tracker.Close()
}

func TestSubmitOnClosedTracker(t *testing.T) {
	t.Parallel()
	tracker := activity.New(clock.Real())
	tracker.Close()
	q := newQueue(t, Config{Workers: 1, Tracker: tracker})
	_, err := q.Submit(0, func(context.Context) {})
	require.ErrorIs(t, err, ErrClosed)
}

func TestTrackerWaitsForQueuedJobs(t *testing.T) {
	t.Parallel()
	tracker := activity.New(clock.Real())
	q := newQueue(t, Config{Workers: 1, Tracker: tracker})
	var ev events
	started := make(chan string, 1)
	release := make(chan struct{})
	_, err := q.Submit(0, gated(&ev, "a", started, release))
	require.NoError(t, err)
	recv(t, started)
	b, err := q.Submit(0, func(context.Context) { ev.add("b") })
	require.NoError(t, err)

	done, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, tracker.WaitIdle(done), context.Canceled, "not idle while jobs run or wait")
	close(release)
	require.NoError(t, tracker.WaitIdle(context.Background()))
	assert.Equal(t, Done, b.State(), "WaitIdle returned only after the queued job ran")
	assert.Equal(t, []string{"a start", "a end", "b"}, ev.get())
}

func TestPanicEndsTheJobOnly(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 1})
	p, err := q.Submit(0, func(context.Context) { panic("boom") })
	require.NoError(t, err)
	recv(t, p.Done())
	ran := make(chan struct{})
	_, err = q.Submit(0, func(context.Context) { close(ran) })
	require.NoError(t, err)
	recv(t, ran)
}

// TestBudgetAdmission: jobs run side by side while their costs fit in the
// budget; the head job that does not fit waits, and so does every job
// behind it (first come, first served), until enough budget is free.
func TestBudgetAdmission(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 4, Budget: 100})
	var ev events
	started := make(chan string, 4)
	relA, relB, relC := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a, err := q.Submit(40, gated(&ev, "a", started, relA))
	require.NoError(t, err)
	b, err := q.Submit(40, gated(&ev, "b", started, relB))
	require.NoError(t, err)
	// a and b fit together (80 <= 100): both start, with workers to spare.
	got := []string{recv(t, started), recv(t, started)}
	assert.ElementsMatch(t, []string{"a", "b"}, got)
	assert.Equal(t, int64(80), q.Stats().InUse)

	c, err := q.Submit(50, gated(&ev, "c", started, relC)) // 130 > 100: waits
	require.NoError(t, err)
	d, err := q.Submit(20, func(context.Context) { ev.add("d") }) // would fit now, but is behind c
	require.NoError(t, err)

	close(relA) // 40 + 50 fits: c starts, d still waits (90 + 20 > 100)
	assert.Equal(t, "c", recv(t, started))
	recv(t, a.Done())
	assert.Equal(t, Queued, d.State())
	close(relB)
	recv(t, b.Done())
	recv(t, d.Done()) // 50 + 20 fits
	close(relC)
	recv(t, c.Done())

	log := ev.get()
	index := func(s string) int {
		for i, l := range log {
			if l == s {
				return i
			}
		}
		t.Fatalf("%q not in %v", s, log)
		return -1
	}
	assert.Less(t, index("a end"), index("c start"), "c waited for budget: %v", log)
	assert.Less(t, index("c start"), index("d"), "d did not overtake c: %v", log)
	assert.Less(t, index("b end"), index("d"), "d waited for budget behind c: %v", log)
}

// TestOversizeJobRunsAlone: a job costing more than the whole budget runs
// when nothing else runs, and nothing starts beside it.
func TestOversizeJobRunsAlone(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 3, Budget: 100})
	var ev events
	started := make(chan string, 3)
	relA, relX := make(chan struct{}), make(chan struct{})
	_, err := q.Submit(10, gated(&ev, "a", started, relA))
	require.NoError(t, err)
	assert.Equal(t, "a", recv(t, started))
	x, err := q.Submit(500, gated(&ev, "x", started, relX))
	require.NoError(t, err)
	small, err := q.Submit(1, func(context.Context) { ev.add("small") })
	require.NoError(t, err)

	close(relA)
	assert.Equal(t, "x", recv(t, started))
	assert.Equal(t, Stats{Queued: 1, Processing: 1, InUse: 500, QueuedCost: 1}, q.Stats())
	close(relX)
	recv(t, x.Done())
	recv(t, small.Done())
	assert.Equal(t, []string{"a start", "a end", "x start", "x end", "small"}, ev.get())
}

// TestOversizeCostDoesNotWrapTheBudget: while a job costing about
// MaxInt64 runs alone (a PNG whose header claims a billion by a billion
// pixels, counted in bytes), the next job is not admissible: the running
// cost plus its own wrapped negative and fitted the budget. One worker,
// so nothing but admissible decides (white box).
func TestOversizeCostDoesNotWrapTheBudget(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 1, Budget: 100})
	var ev events
	started := make(chan string, 1)
	release := make(chan struct{})
	x, err := q.Submit(math.MaxInt64, gated(&ev, "x", started, release))
	require.NoError(t, err)
	assert.Equal(t, "x", recv(t, started))
	small, err := q.Submit(1, func(context.Context) { ev.add("small") })
	require.NoError(t, err)
	q.mu.Lock()
	admissible := q.admissible()
	q.mu.Unlock()
	assert.False(t, admissible, "a job beside one costing MaxInt64")
	assert.Equal(t, Stats{Queued: 1, Processing: 1, InUse: math.MaxInt64, QueuedCost: 1}, q.Stats())
	close(release)
	recv(t, x.Done())
	recv(t, small.Done())
}

// TestCancelHeadUnblocksTheNext: removing the queued job that waits for
// budget lets the smaller one behind it start.
func TestCancelHeadUnblocksTheNext(t *testing.T) {
	t.Parallel()
	q := newQueue(t, Config{Workers: 2, Budget: 100})
	var ev events
	started := make(chan string, 2)
	release := make(chan struct{})
	_, err := q.Submit(90, gated(&ev, "a", started, release))
	require.NoError(t, err)
	recv(t, started)
	big, err := q.Submit(50, func(context.Context) { ev.add("big") })
	require.NoError(t, err)
	small, err := q.Submit(10, func(context.Context) { ev.add("small") })
	require.NoError(t, err)
	require.True(t, big.Cancel())
	recv(t, small.Done())
	close(release)
	assert.Equal(t, []string{"a start", "small"}, ev.get()[:2])
}
