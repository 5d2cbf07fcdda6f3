package poll

import (
	"sort"
	"sync"
	"time"
)

// FakeClock is a Clock for tests and benchmarks: its time moves only when
// Advance or AdvanceToNext moves it, and timers fire (each in its own
// goroutine, as with time.AfterFunc) when it passes their deadline. It is
// safe for concurrent use.
//
// To drive a wait loop running in another goroutine, repeat: take
// Changed(), AdvanceToNext() if a timer is pending, else wait on the
// channel (a new timer) or on the loop's end.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	seq     int
	changed chan struct{}
}

type fakeTimer struct {
	at  time.Time
	seq int
	f   func()
}

// NewFakeClock returns a FakeClock reading t0.
func NewFakeClock(t0 time.Time) *FakeClock {
	return &FakeClock{now: t0, changed: make(chan struct{})}
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc registers f to run once the clock reaches Now()+d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{at: c.now.Add(max(d, 0)), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	sort.Slice(c.timers, func(i, j int) bool {
		a, b := c.timers[i], c.timers[j]
		return a.at.Before(b.at) || (a.at.Equal(b.at) && a.seq < b.seq)
	})
	close(c.changed)
	c.changed = make(chan struct{})
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.timers {
			if x == t {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// Changed returns a channel closed when the next timer is registered.
func (c *FakeClock) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Pending returns the number of timers not yet fired or stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock forward by d, firing every timer due by then in
// deadline order.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	var due []*fakeTimer
	for len(c.timers) > 0 && !c.timers[0].at.After(end) {
		due = append(due, c.timers[0])
		c.timers = c.timers[1:]
	}
	c.now = end
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
}

// AdvanceToNext moves the clock to the earliest pending timer's deadline
// (not backwards) and fires the timers due then; it reports whether one
// was pending.
func (c *FakeClock) AdvanceToNext() bool {
	c.mu.Lock()
	if len(c.timers) == 0 {
		c.mu.Unlock()
		return false
	}
	d := max(c.timers[0].at.Sub(c.now), 0)
	c.mu.Unlock()
	c.Advance(d)
	return true
}
