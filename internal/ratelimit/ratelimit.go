// Package ratelimit is a client's one rate budget (pfc.WithRateLimit): a
// token bucket that every request of the client waits on before it is
// sent, whose rate follows the service's answers by AIMD. A 429 halves
// the rate (down to a floor of 1/32 of the configured one) and its
// Retry-After holds back every request of the client until then; each
// later answer that is not a 429 raises the rate again by 1/100 of the
// configured one, up to it.
//
// A burst of 429s answering requests sent at the same rate cuts it once:
// an answer counts only if its request was admitted after the last cut
// (see Ticket).
package ratelimit

import (
	"context"
	"errors"
	"math"
	"net/http"
	"sync"
	"time"
)

// Tuning of the AIMD rate.
const (
	// Decrease is the factor a 429 multiplies the rate by.
	Decrease = 0.5
	// FloorDivisor: the rate never falls below the configured one divided
	// by it.
	FloorDivisor = 32
	// StepDivisor: each answer that is not a 429 raises the rate by the
	// configured one divided by it.
	StepDivisor = 100
)

// MaxBurst bounds New's burst.
const MaxBurst = 1 << 20

// maxInterval bounds the time between two requests, whatever the rate:
// a rate below one request an hour acts as one an hour.
const maxInterval = time.Hour

// ErrInvalid is returned by New for a rate that is not a positive finite
// number, or a burst that is negative or over MaxBurst.
var ErrInvalid = errors.New("ratelimit: invalid rate or burst")

// Budget is one client's rate budget. It is safe for concurrent use.
type Budget struct {
	limit, floor, step float64
	burst              int
	now                func() time.Time
	after              func(d time.Duration, f func()) (stop func() bool)

	mu   sync.Mutex
	rate float64
	// tat is the theoretical arrival time of the next request (GCRA): a
	// request may go at tat - (burst-1) intervals. hold is the end of the
	// last Retry-After; epoch counts the holds, so that a waiter woken
	// during a newer hold takes a new slot after it.
	tat, hold time.Time
	epoch     uint64
	// gen counts the cuts of the rate (see Ticket).
	gen uint64
}

// Ticket is what Wait gives an admitted request, to hand to Done with its
// answer: the generation of the rate it was sent at. An answer to a
// request sent before the last cut changes no rate.
type Ticket struct{ gen uint64 }

// New returns a budget of perSecond requests per second on average,
// burst of them at once after a pause (0 means 1), on the wall clock.
func New(perSecond float64, burst int) (*Budget, error) {
	return NewClock(perSecond, burst, time.Now, func(d time.Duration, f func()) func() bool {
		return time.AfterFunc(d, f).Stop
	})
}

// NewClock is New on another clock: now reads it, after calls f once d
// has passed on it and returns what cancels that call (tests pass a fake
// clock's).
func NewClock(perSecond float64, burst int, now func() time.Time, after func(time.Duration, func()) func() bool) (*Budget, error) {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) || burst < 0 || burst > MaxBurst {
		return nil, ErrInvalid
	}
	return &Budget{
		limit: perSecond, floor: perSecond / FloorDivisor, step: perSecond / StepDivisor,
		burst: max(burst, 1), now: now, after: after, rate: perSecond,
	}, nil
}

// Rate returns the requests per second the budget allows now.
func (b *Budget) Rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rate
}

// interval is the time between two requests at the current rate.
func (b *Budget) interval() time.Duration {
	if s := 1 / b.rate; s < maxInterval.Seconds() {
		return time.Duration(s * float64(time.Second))
	}
	return maxInterval
}

// Wait blocks until a request may be sent, or ctx is done (its error is
// returned, and the slot given back when it was the last one taken).
func (b *Budget) Wait(ctx context.Context) (Ticket, error) {
	for {
		if err := ctx.Err(); err != nil {
			return Ticket{}, err
		}
		b.mu.Lock()
		now := b.now()
		start := now
		if b.hold.After(start) {
			start = b.hold
		}
		iv := b.interval()
		tat := b.tat
		if tat.Before(start) {
			tat = start
		}
		at := tat.Add(-time.Duration(b.burst-1) * iv)
		if at.Before(start) {
			at = start
		}
		if at.After(tat) {
			tat = at
		}
		b.tat = tat.Add(iv)
		mine, epoch := b.tat, b.epoch
		if !at.After(now) {
			t := Ticket{b.gen}
			b.mu.Unlock()
			return t, nil
		}
		b.mu.Unlock()

		err := b.sleep(ctx, at.Sub(now))
		b.mu.Lock()
		if err != nil {
			if b.epoch == epoch && b.tat.Equal(mine) {
				b.tat = mine.Add(-iv) // nobody took a later slot: give it back
			}
			b.mu.Unlock()
			return Ticket{}, err
		}
		if b.epoch == epoch || !b.hold.After(b.now()) {
			t := Ticket{b.gen}
			b.mu.Unlock()
			return t, nil
		}
		b.mu.Unlock() // a Retry-After arrived meanwhile: a new slot after it
	}
}

// sleep waits d on the budget's clock, or until ctx is done.
func (b *Budget) sleep(ctx context.Context, d time.Duration) error {
	done := make(chan struct{})
	stop := b.after(d, func() { close(done) })
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		if !stop() {
			<-done // fired meanwhile; nothing is left running
		}
		return ctx.Err()
	}
}

// Done reports the answer to a request admitted with t: its status, and
// the Retry-After it carried (ok false when none; already capped by the
// caller). A 429 holds every request back until the Retry-After has
// passed and, unless the rate was cut since t, cuts it; any other answer
// raises it (a server error, 5xx, neither). It returns the rate after a
// cut, 0 when there was none.
func (b *Budget) Done(t Ticket, status int, retryAfter time.Duration, ok bool) (cutTo float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if status != http.StatusTooManyRequests {
		if status < 500 && t.gen == b.gen && b.rate < b.limit {
			b.rate = min(b.limit, b.rate+b.step)
		}
		return 0
	}
	now := b.now()
	held := false
	if ok && retryAfter > 0 {
		if h := now.Add(retryAfter); h.After(b.hold) {
			b.hold, held = h, true
			b.epoch++
		}
	}
	cut := t.gen == b.gen
	if cut {
		b.gen++
		b.rate = max(b.floor, b.rate*Decrease)
	}
	if !cut && !held {
		return 0
	}
	// The service's bucket is empty: so is ours, from the end of the hold.
	start := now
	if b.hold.After(start) {
		start = b.hold
	}
	if full := start.Add(time.Duration(b.burst-1) * b.interval()); full.After(b.tat) {
		b.tat = full
	}
	if cut {
		return b.rate
	}
	return 0
}
