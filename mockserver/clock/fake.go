package clock

import (
	"context"
	"time"

	"github.com/pfcsdk/pfc-go/internal/fakeclock"
)

// Fake is a manually driven Clock for tests. The zero value is not usable;
// create one with NewFake. It is safe for concurrent use.
type Fake struct {
	c *fakeclock.Clock // the module's one fake clock
}

// NewFake returns a fake clock reading t0.
func NewFake(t0 time.Time) *Fake {
	return &Fake{c: fakeclock.New(t0)}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time { return f.c.Now() }

// AfterFunc schedules fn at Now()+d. It never runs fn itself: fn runs in a
// later Advance that reaches its deadline (a d <= 0 timer in the next
// Advance, even Advance(0)).
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer { return f.c.AfterFunc(d, fn) }

// Advance moves the clock forward by d, running every timer whose deadline
// is reached, earliest first (ties in scheduling order). While a callback
// runs, Now reads its deadline; callbacks run on the calling goroutine, and
// a timer a callback schedules within the window runs in the same Advance.
// When Advance returns, Now reads the old time plus d. A negative d is
// treated as zero.
func (f *Fake) Advance(d time.Duration) { f.c.Advance(d) }

// AdvanceTo advances the clock to t (no-op if t is not after Now).
func (f *Fake) AdvanceTo(t time.Time) { f.c.AdvanceTo(t) }

// Pending returns the number of scheduled timers that have neither run
// nor been stopped.
func (f *Fake) Pending() int { return f.c.Pending() }

// NextDeadline returns the earliest pending deadline, and false when no
// timer is pending.
func (f *Fake) NextDeadline() (time.Time, bool) { return f.c.NextDeadline() }

// BlockUntil blocks until at least n timers are pending.
func (f *Fake) BlockUntil(n int) { f.c.BlockUntil(n) }

// BlockUntilContext blocks until at least n timers are pending or ctx is
// done, and returns ctx's error in the latter case.
func (f *Fake) BlockUntilContext(ctx context.Context, n int) error {
	return f.c.BlockUntilContext(ctx, n)
}
