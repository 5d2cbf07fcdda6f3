package poll

import (
	"time"

	"github.com/pfcsdk/pfc-go/internal/fakeclock"
)

// FakeClock is a Clock for tests and benchmarks: the module's fake clock
// (package fakeclock, which the mock servers' clock.Fake uses too) seen
// through this package's Clock interface. Its time moves only when Advance
// or AdvanceToNext moves it; due timers run on the advancing goroutine, in
// deadline order, before Advance returns. It is safe for concurrent use.
//
// To drive a wait loop running in another goroutine, repeat: take
// Changed(), AdvanceToNext() if a timer is pending, else wait on the
// channel (a new timer) or on the loop's end.
type FakeClock struct {
	c *fakeclock.Clock
}

// NewFakeClock returns a FakeClock reading t0.
func NewFakeClock(t0 time.Time) *FakeClock {
	return &FakeClock{c: fakeclock.New(t0)}
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time { return c.c.Now() }

// AfterFunc registers f to run once the clock reaches Now()+d, and returns
// the function that stops it.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	return c.c.AfterFunc(d, f).Stop
}

// Changed returns a channel closed when the next timer is registered.
func (c *FakeClock) Changed() <-chan struct{} { return c.c.Changed() }

// Pending returns the number of timers not yet fired or stopped.
func (c *FakeClock) Pending() int { return c.c.Pending() }

// Advance moves the clock forward by d, firing every timer due by then in
// deadline order.
func (c *FakeClock) Advance(d time.Duration) { c.c.Advance(d) }

// AdvanceToNext moves the clock to the earliest pending timer's deadline
// (not backwards) and fires the timers due then; it reports whether one
// was pending.
func (c *FakeClock) AdvanceToNext() bool { return c.c.AdvanceToNext() }

// Drive runs f in a goroutine and moves clk to each timer set until f
// returns, then returns what f did: a wait on clk (poll.Until with
// Options.Clock) runs through its delays at once. Only for tests.
func Drive[T any](clk *FakeClock, f func() (T, error)) (T, error) {
	type out struct {
		v   T
		err error
	}
	done := make(chan out, 1)
	go func() {
		v, err := f()
		done <- out{v, err}
	}()
	for {
		ch := clk.Changed()
		if clk.AdvanceToNext() {
			continue
		}
		select {
		case r := <-done:
			return r.v, r.err
		case <-ch:
		}
	}
}
