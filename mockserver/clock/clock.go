package clock

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Clock tells the time and schedules callbacks.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f once d has elapsed on this clock, on a goroutine
	// of the clock's choosing, and returns a Timer that can cancel it.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop cancels the call. It reports whether the call was still
	// pending; false means it has already run (or started) or was stopped.
	Stop() bool
}

// Since returns how much time has passed on c since t, an earlier
// reading of c.Now: the duration to compare with those given to
// AfterFunc (a retention period, a TTL). On most clocks it is
// c.Now().Sub(t); a clock whose Now is not the time its timers keep
// (Scaled) says so with a method Since(time.Time) time.Duration, which is
// used instead.
func Since(c Clock, t time.Time) time.Duration {
	if s, ok := c.(interface{ Since(time.Time) time.Duration }); ok {
		return s.Since(t)
	}
	return c.Now().Sub(t)
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// ErrInvalidScale is returned by NewScaled for a factor that is not a
// finite positive number.
var ErrInvalidScale = errors.New("clock: invalid time scale")

// Scaled is a wall clock whose timers run Factor times as long as asked:
// AfterFunc(d) fires after d×Factor of real time. Now is the wall clock.
type Scaled struct {
	factor float64
}

// NewScaled returns a clock whose timers fire after factor times the
// requested duration (0.001: a thousand times sooner). factor must be
// finite and positive.
func NewScaled(factor float64) (*Scaled, error) {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("%w: %v (want a finite number > 0)", ErrInvalidScale, factor)
	}
	return &Scaled{factor: factor}, nil
}

// Factor returns the scale factor.
func (s *Scaled) Factor() float64 { return s.factor }

// Now returns the wall-clock time; only durations are scaled.
func (s *Scaled) Now() time.Time { return time.Now() }

// AfterFunc calls f after d×Factor of real time.
func (s *Scaled) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(s.Scale(d), f)
}

// Scale returns d×Factor, saturating at the largest duration.
func (s *Scaled) Scale(d time.Duration) time.Duration {
	v := float64(d) * s.factor
	if v >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(v)
}

// Since returns the wall time passed since t (a Now reading) divided by
// Factor, saturating: the time that has passed on the clock's timers.
func (s *Scaled) Since(t time.Time) time.Duration {
	v := float64(time.Since(t)) / s.factor
	switch {
	case v >= math.MaxInt64:
		return time.Duration(math.MaxInt64)
	case v <= math.MinInt64:
		return time.Duration(math.MinInt64)
	}
	return time.Duration(v)
}
