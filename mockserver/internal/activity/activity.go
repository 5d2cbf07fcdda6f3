package activity

import (
	"context"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// Tracker counts running work. The zero value is not usable; use New.
type Tracker struct {
	clock clock.Clock

	mu      sync.Mutex
	running int
	closed  bool
	idle    chan struct{} // closed while running == 0
	timers  map[*Timer]struct{}
}

// New returns a tracker whose timers run on c.
func New(c clock.Clock) *Tracker {
	idle := make(chan struct{})
	close(idle)
	return &Tracker{clock: c, idle: idle, timers: map[*Timer]struct{}{}}
}

// Clock returns the tracker's clock.
func (t *Tracker) Clock() clock.Clock { return t.clock }

// Begin records the start of a piece of work. It returns false, recording
// nothing, once Close has been called; the caller must then not start the
// work. Every true Begin must be matched by one End.
func (t *Tracker) Begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	if t.running == 0 {
		t.idle = make(chan struct{})
	}
	t.running++
	return true
}

// End records the end of a piece of work started with Begin.
func (t *Tracker) End() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running--
	if t.running == 0 {
		close(t.idle)
	}
}

// Go runs f on a new goroutine as tracked work. It reports false, without
// running f, once Close has been called.
func (t *Tracker) Go(f func()) bool {
	if !t.Begin() {
		return false
	}
	go func() {
		defer t.End()
		f()
	}()
	return true
}

// WaitIdle blocks until no tracked work is running, or ctx is done.
// Pending timers do not count as running: with a fake clock, WaitIdle
// returns when everything left waits for the clock to move.
func (t *Tracker) WaitIdle(ctx context.Context) error {
	t.mu.Lock()
	ch := t.idle
	t.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Closed reports whether Close has been called.
func (t *Tracker) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Timer is a tracked clock timer.
type Timer struct {
	tracker *Tracker
	inner   clock.Timer
}

// AfterFunc schedules f after d on the tracker's clock. When the timer
// fires, f runs as tracked work (WaitIdle waits for it), unless the
// tracker has been closed. It returns nil, scheduling nothing, once Close
// has been called.
func (t *Tracker) AfterFunc(d time.Duration, f func()) *Timer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	tm := &Timer{tracker: t}
	// Registering before the clock can fire keeps the map consistent: the
	// callback deletes the entry under the same mutex.
	t.timers[tm] = struct{}{}
	tm.inner = t.clock.AfterFunc(d, func() {
		t.mu.Lock()
		if _, pending := t.timers[tm]; !pending || t.closed {
			t.mu.Unlock()
			return
		}
		delete(t.timers, tm)
		if t.running == 0 {
			t.idle = make(chan struct{})
		}
		t.running++
		t.mu.Unlock()
		defer t.End()
		f()
	})
	return tm
}

// Stop cancels the timer if it has not fired; it reports whether it did.
// A nil Timer is a no-op.
func (tm *Timer) Stop() bool {
	if tm == nil {
		return false
	}
	t := tm.tracker
	t.mu.Lock()
	_, pending := t.timers[tm]
	delete(t.timers, tm)
	t.mu.Unlock()
	if !pending {
		return false
	}
	tm.inner.Stop()
	return true
}

// Close stops accepting work, stops every pending timer and waits until
// the running work has ended. Cancel whatever the running work waits on
// (a context) before calling Close. Close is idempotent.
func (t *Tracker) Close() {
	t.mu.Lock()
	t.closed = true
	timers := t.timers
	t.timers = map[*Timer]struct{}{}
	ch := t.idle
	t.mu.Unlock()
	for tm := range timers {
		tm.inner.Stop()
	}
	<-ch
}
