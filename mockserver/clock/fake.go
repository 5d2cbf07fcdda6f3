package clock

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Fake is a manually driven Clock for tests. The zero value is not usable;
// create one with NewFake. It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	timers  timerHeap
	changed chan struct{} // closed and replaced whenever the timer set grows
	// advancing serialises Advance calls so that callbacks run in one
	// deadline order even when two goroutines advance at once.
	advancing sync.Mutex
}

// NewFake returns a fake clock reading t0.
func NewFake(t0 time.Time) *Fake {
	return &Fake{now: t0, changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// AfterFunc schedules fn at Now()+d. It never runs fn itself: fn runs in a
// later Advance that reaches its deadline (a d <= 0 timer in the next
// Advance, even Advance(0)).
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	t := &fakeTimer{clock: f, when: f.now.Add(d), seq: f.seq, fn: fn, index: -1}
	heap.Push(&f.timers, t)
	close(f.changed)
	f.changed = make(chan struct{})
	return t
}

// Advance moves the clock forward by d, running every timer whose deadline
// is reached, earliest first (ties in scheduling order). While a callback
// runs, Now reads its deadline; callbacks run on the calling goroutine, and
// a timer a callback schedules within the window runs in the same Advance.
// When Advance returns, Now reads the old time plus d. A negative d is
// treated as zero.
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	f.advancing.Lock()
	defer f.advancing.Unlock()
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		if len(f.timers) == 0 || f.timers[0].when.After(target) {
			f.now = target
			f.mu.Unlock()
			return
		}
		t := heap.Pop(&f.timers).(*fakeTimer)
		if t.when.After(f.now) {
			f.now = t.when
		}
		f.mu.Unlock()
		t.fn()
	}
}

// AdvanceTo advances the clock to t (no-op if t is not after Now).
func (f *Fake) AdvanceTo(t time.Time) {
	f.Advance(t.Sub(f.Now()))
}

// Pending returns the number of scheduled timers that have neither run
// nor been stopped.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// NextDeadline returns the earliest pending deadline, and false when no
// timer is pending.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.timers) == 0 {
		return time.Time{}, false
	}
	return f.timers[0].when, true
}

// BlockUntil blocks until at least n timers are pending.
func (f *Fake) BlockUntil(n int) {
	_ = f.BlockUntilContext(context.Background(), n)
}

// BlockUntilContext blocks until at least n timers are pending or ctx is
// done, and returns ctx's error in the latter case.
func (f *Fake) BlockUntilContext(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		if len(f.timers) >= n {
			f.mu.Unlock()
			return nil
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type fakeTimer struct {
	clock *Fake
	when  time.Time
	seq   uint64
	fn    func()
	index int // position in the heap, -1 when not pending
}

// Stop removes the timer if it is still pending.
func (t *fakeTimer) Stop() bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&f.timers, t.index)
	return true
}

// timerHeap orders timers by deadline, then by scheduling order.
type timerHeap []*fakeTimer

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
	t := x.(*fakeTimer)
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
