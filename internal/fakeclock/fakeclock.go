package fakeclock

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Clock is a manually driven clock. The zero value is not usable; create
// one with New. It is safe for concurrent use.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	timers  timerHeap
	changed chan struct{} // closed and replaced whenever the timer set grows
	// advancing serialises Advance calls so that callbacks run in one
	// deadline order even when two goroutines advance at once.
	advancing sync.Mutex
}

// New returns a clock reading t0.
func New(t0 time.Time) *Clock {
	return &Clock{now: t0, changed: make(chan struct{})}
}

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules fn at Now()+d. It never runs fn itself: fn runs in a
// later Advance that reaches its deadline (a d <= 0 timer in the next
// Advance, even Advance(0)).
func (c *Clock) AfterFunc(d time.Duration, fn func()) *Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &Timer{clock: c, when: c.now.Add(d), seq: c.seq, fn: fn, index: -1}
	heap.Push(&c.timers, t)
	close(c.changed)
	c.changed = make(chan struct{})
	return t
}

// Advance moves the clock forward by d, running every timer whose deadline
// is reached, earliest first (ties in scheduling order). While a callback
// runs, Now reads its deadline; callbacks run on the calling goroutine, and
// a timer a callback schedules within the window runs in the same Advance.
// When Advance returns, Now reads the old time plus d. A negative d is
// treated as zero.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].when.After(target) {
			c.now = target
			c.mu.Unlock()
			return
		}
		t := heap.Pop(&c.timers).(*Timer)
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.fn()
	}
}

// AdvanceTo advances the clock to t (no-op if t is not after Now).
func (c *Clock) AdvanceTo(t time.Time) {
	c.Advance(t.Sub(c.Now()))
}

// AdvanceToNext moves the clock to the earliest pending deadline (not
// backwards) and runs the timers due then, as Advance does; it reports
// whether a timer was pending.
func (c *Clock) AdvanceToNext() bool {
	next, ok := c.NextDeadline()
	if !ok {
		return false
	}
	c.Advance(max(next.Sub(c.Now()), 0))
	return true
}

// Pending returns the number of scheduled timers that have neither run
// nor been stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// NextDeadline returns the earliest pending deadline, and false when no
// timer is pending.
func (c *Clock) NextDeadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].when, true
}

// Changed returns a channel that is closed when the next timer is
// scheduled. Take it before checking for pending timers, then wait on
// it, to wait for a timer without missing one.
func (c *Clock) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// BlockUntil blocks until at least n timers are pending.
func (c *Clock) BlockUntil(n int) {
	_ = c.BlockUntilContext(context.Background(), n)
}

// BlockUntilContext blocks until at least n timers are pending or ctx is
// done, and returns ctx's error in the latter case.
func (c *Clock) BlockUntilContext(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.timers) >= n {
			c.mu.Unlock()
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Timer is a callback scheduled with AfterFunc.
type Timer struct {
	clock *Clock
	when  time.Time
	seq   uint64
	fn    func()
	index int // position in the heap, -1 when not pending
}

// Stop removes the timer if it is still pending and reports whether it
// was; false means it has run (or started) or was stopped before.
func (t *Timer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	return true
}

// timerHeap orders timers by deadline, then by scheduling order.
type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) Less(i, j int) bool {
	if !h[i].when.Equal(h[j].when) {
		return h[i].when.Before(h[j].when)
	}
	return h[i].seq < h[j].seq
}

func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *timerHeap) Push(x any) {
	t := x.(*Timer)
	t.index = len(*h)
	*h = append(*h, t)
}

func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}
