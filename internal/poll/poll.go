package poll

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// ErrTimeout is matched (errors.Is) by the error Until returns when
// Options.MaxWait runs out.
var ErrTimeout = errors.New("pfc: gave up waiting (MaxWait ran out)")

// Options controls Until. Zero delays take the defaults given to
// WithDefaults by each client.
type Options struct {
	// MinDelay is the first delay between fetches.
	MinDelay time.Duration
	// MaxDelay caps the delay between fetches.
	MaxDelay time.Duration
	// MaxWait bounds the whole wait, a fetch in flight included; 0 waits
	// until the context ends.
	MaxWait time.Duration
	// OnProgress, if set, receives every value fetched without error,
	// done or not, on the waiting goroutine.
	OnProgress func(any)
	// Clock is the time source of the delays and of MaxWait; nil means
	// the real clock. It is for tests and benchmarks (a fake clock makes
	// a 60 s job take microseconds): the clients never set it, and their
	// public options cannot. With a Clock, MaxWait ends the wait through
	// a timer on it instead of a context deadline, so a fetch in flight
	// sees a cancellation rather than a deadline.
	Clock Clock
}

// Clock is a time source: the real one, or a fake in tests.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f once d has elapsed, unless the returned stop
	// function is called first (it reports whether it stopped the call):
	// on the real clock in its own goroutine, on FakeClock in the one that
	// advances the clock, so the f that Until passes never block.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the Clock of the time package.
type realClock struct{}

// Now is time.Now.
func (realClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc, returning the timer's Stop.
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Validate reports negative durations and a MaxDelay below MinDelay, naming
// the Options fields.
func (o Options) Validate() apierr.FieldErrors {
	var fe apierr.FieldErrors
	if o.MinDelay < 0 {
		fe.Add("MinDelay", "must not be negative, got %s", o.MinDelay)
	}
	if o.MaxDelay < 0 {
		fe.Add("MaxDelay", "must not be negative, got %s", o.MaxDelay)
	}
	if o.MinDelay > 0 && o.MaxDelay > 0 && o.MaxDelay < o.MinDelay {
		fe.Add("MaxDelay", "must be at least MinDelay (%s), got %s", o.MinDelay, o.MaxDelay)
	}
	if o.MaxWait < 0 {
		fe.Add("MaxWait", "must not be negative, got %s", o.MaxWait)
	}
	return fe
}

// WithDefaults fills a zero MinDelay or MaxDelay and raises MaxDelay to
// MinDelay when it is lower. A MaxDelay given alone caps the default
// MinDelay too: it is a cap on every delay.
func (o Options) WithDefaults(minDelay, maxDelay time.Duration) Options {
	if o.MinDelay == 0 {
		o.MinDelay = minDelay
		if o.MaxDelay > 0 {
			o.MinDelay = min(o.MinDelay, o.MaxDelay)
		}
	}
	if o.MaxDelay == 0 {
		o.MaxDelay = maxDelay
	}
	if o.MaxDelay < o.MinDelay {
		o.MaxDelay = o.MinDelay
	}
	return o
}

// TimeoutError reports that MaxWait ran out before fetch said done.
type TimeoutError struct {
	// Waited is how long the wait lasted.
	Waited time.Duration
	// Fetches is how many fetches completed without error.
	Fetches int
}

// Error says how long the wait lasted.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("pfc: gave up waiting after %s", e.Waited.Round(time.Millisecond))
}

// Unwrap returns ErrTimeout.
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// ComputeDelay returns the delay before step attempt+1 (attempt is 0-based):
// equal jitter over minDelay·2^attempt capped at maxDelay (a random duration
// between half of it and all of it), trimmed to remaining. remaining < 0
// means no deadline; a result of 0 means no time is left to wait. The
// transport's retries use it.
func ComputeDelay(attempt int, minDelay, maxDelay, remaining time.Duration) time.Duration {
	return ComputeDelayJitter(attempt, minDelay, maxDelay, remaining, Jitter)
}

// ComputeDelayJitter is ComputeDelay with the random source given: jitter(n)
// returns a duration in [0, n]. Tests pass a fixed one.
func ComputeDelayJitter(attempt int, minDelay, maxDelay, remaining time.Duration, jitter func(time.Duration) time.Duration) time.Duration {
	return computeDelay(attempt, minDelay, maxDelay, remaining, retrySpread, jitter)
}

// The spread of the jitter: the delay is drawn from [(1-spread)·d, d].
// Retries after an outage meet every other client retrying at the same
// moment, so they spread widely (equal jitter). A wait loop polls one job
// whose start already decorrelates it from other waiters; a narrow spread
// keeps its number of calls within the doubling schedule's, 1 +
// log2(wait/minDelay) + wait/maxDelay, while still avoiding lockstep.
const (
	retrySpread = 0.5
	pollSpread  = 0.2
)

// computeDelay is the one delay computation: the exponential step
// minDelay·2^attempt capped at maxDelay, jittered down by at most spread
// of it, trimmed to remaining (< 0: no deadline; 0: no time left).
func computeDelay(attempt int, minDelay, maxDelay, remaining time.Duration, spread float64, jitter func(time.Duration) time.Duration) time.Duration {
	if remaining == 0 {
		return 0
	}
	minDelay, maxDelay = max(minDelay, 0), max(maxDelay, 0)
	d := maxDelay
	if attempt < 0 {
		attempt = 0
	}
	if attempt < 62 {
		if exp := minDelay << attempt; exp >= 0 && exp>>attempt == minDelay && exp < maxDelay {
			d = exp
		}
	}
	low := d - time.Duration(float64(d)*spread)
	d = low + min(max(jitter(d-low), 0), d-low)
	if remaining > 0 && d > remaining {
		d = remaining
	}
	return d
}

// Jitter returns a uniformly random duration in [0, n].
func Jitter(n time.Duration) time.Duration {
	if n <= 0 {
		return 0
	}
	return rand.N(n + 1)
}

// Until calls fetch until it returns done or an error, waiting the same
// exponential delays as ComputeDelay but with a narrower jitter (80% to 100%
// of each step, see pollSpread)
// between calls, and returns the last value. fetch receives a context that
// also ends when o.MaxWait runs out, so MaxWait bounds a fetch in flight.
//
// It returns:
//   - the value and nil when fetch said done;
//   - the value and fetch's error when fetch failed (before MaxWait ran out);
//   - the last value fetched without error and a *TimeoutError
//     (errors.Is(err, ErrTimeout)) when MaxWait ran out, in a delay or
//     during a fetch;
//   - the last value and ctx's error when ctx was cancelled or reached its
//     deadline.
//
// o is used as given: call WithDefaults first. A zero MinDelay polls
// without waiting, which is only sensible in tests.
func Until[T any](ctx context.Context, o Options, fetch func(context.Context) (T, bool, error)) (T, error) {
	var last T
	if ctx == nil {
		return last, errors.New("pfc: poll: nil context")
	}
	if fe := o.Validate(); len(fe) > 0 {
		return last, fe.Err()
	}
	clk := o.Clock
	if clk == nil {
		clk = realClock{}
	}
	start := clk.Now()
	waitCtx := ctx
	var maxWaitEnd time.Time
	if o.MaxWait > 0 {
		maxWaitEnd = start.Add(o.MaxWait)
		var cancel context.CancelFunc
		if o.Clock == nil {
			waitCtx, cancel = context.WithDeadline(ctx, maxWaitEnd)
		} else {
			waitCtx, cancel = context.WithCancel(ctx)
			stop := clk.AfterFunc(o.MaxWait, cancel)
			defer stop()
		}
		defer cancel()
	}
	fetches := 0
	// outcome is what a done waitCtx means: the caller's context ending
	// wins over MaxWait.
	outcome := func() (T, error) {
		if err := ctx.Err(); err != nil {
			return last, err
		}
		return last, &TimeoutError{Waited: clk.Now().Sub(start), Fetches: fetches}
	}
	// sleep waits d on the clock, or until waitCtx ends (false). The real
	// clock reuses one timer; a test clock gets an AfterFunc per delay.
	var sleep func(d time.Duration) bool
	if o.Clock == nil {
		var timer *time.Timer // made on the first sleep: most waits on a done job need none
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		sleep = func(d time.Duration) bool {
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			select {
			case <-waitCtx.Done():
				return false
			case <-timer.C:
				return true
			}
		}
	} else {
		fired := make(chan struct{}, 1)
		sleep = func(d time.Duration) bool {
			stop := clk.AfterFunc(d, func() { fired <- struct{}{} })
			select {
			case <-waitCtx.Done():
				stop() // fired is buffered: a timer that fired anyway does not block
				return false
			case <-fired:
				return true
			}
		}
	}
	for attempt := 0; ; attempt++ {
		v, done, err := fetch(waitCtx)
		if err != nil {
			if waitCtx.Err() != nil {
				return outcome()
			}
			return last, err
		}
		last = v
		fetches++
		if o.OnProgress != nil {
			o.OnProgress(v)
		}
		if done {
			return v, nil
		}
		remaining := time.Duration(-1)
		if dl, ok := ctx.Deadline(); ok {
			remaining = max(time.Until(dl), 0) // the caller's deadline is real time
		}
		if o.MaxWait > 0 {
			if r := max(maxWaitEnd.Sub(clk.Now()), 0); remaining < 0 || r < remaining {
				remaining = r
			}
		}
		delay := computeDelay(attempt, o.MinDelay, o.MaxDelay, remaining, pollSpread, Jitter)
		if delay <= 0 && remaining == 0 {
			// Out of time: waitCtx is due to end now, if it has not yet.
			<-waitCtx.Done()
			return outcome()
		}
		if !sleep(delay) {
			return outcome()
		}
	}
}
