package clock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestFakeFiresInDeadlineOrder(t *testing.T) {
	f := clock.NewFake(t0)
	var got []string
	var at []time.Duration
	record := func(name string) func() {
		return func() {
			got = append(got, name)
			at = append(at, f.Now().Sub(t0))
		}
	}
	f.AfterFunc(3*time.Minute, record("c"))
	f.AfterFunc(time.Minute, record("a1"))
	f.AfterFunc(time.Minute, record("a2")) // same deadline: scheduling order
	f.AfterFunc(2*time.Minute, record("b"))
	f.AfterFunc(10*time.Minute, record("late"))
	require.Equal(t, 5, f.Pending())

	f.Advance(3 * time.Minute)
	assert.Equal(t, []string{"a1", "a2", "b", "c"}, got)
	assert.Equal(t, []time.Duration{time.Minute, time.Minute, 2 * time.Minute, 3 * time.Minute}, at)
	assert.Equal(t, t0.Add(3*time.Minute), f.Now())
	assert.Equal(t, 1, f.Pending())
	next, ok := f.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, t0.Add(10*time.Minute), next)
}

func TestFakeCallbackSchedulesWithinWindow(t *testing.T) {
	f := clock.NewFake(t0)
	var fired []time.Duration
	var step func()
	step = func() {
		fired = append(fired, f.Now().Sub(t0))
		if len(fired) < 5 {
			f.AfterFunc(time.Minute, step)
		}
	}
	f.AfterFunc(time.Minute, step)
	f.Advance(3*time.Minute + 30*time.Second)
	assert.Equal(t, []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute}, fired)
	f.Advance(time.Hour)
	assert.Len(t, fired, 5)
	assert.Equal(t, 0, f.Pending())
}

func TestFakeStop(t *testing.T) {
	f := clock.NewFake(t0)
	ran := false
	tm := f.AfterFunc(time.Second, func() { ran = true })
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	f.Advance(time.Hour)
	assert.False(t, ran)

	tm2 := f.AfterFunc(time.Second, func() {})
	f.Advance(time.Second)
	assert.False(t, tm2.Stop(), "already fired")
}

func TestFakeZeroDelayRunsOnNextAdvance(t *testing.T) {
	f := clock.NewFake(t0)
	ran := 0
	f.AfterFunc(0, func() { ran++ })
	f.AfterFunc(-time.Second, func() { ran++ })
	assert.Equal(t, 0, ran)
	f.Advance(0)
	assert.Equal(t, 2, ran)
	assert.Equal(t, t0, f.Now(), "a past deadline does not move the clock back")
	f.Advance(-time.Hour)
	assert.Equal(t, t0, f.Now())
}

func TestFakeAdvanceTo(t *testing.T) {
	f := clock.NewFake(t0)
	f.AdvanceTo(t0.Add(time.Hour))
	assert.Equal(t, t0.Add(time.Hour), f.Now())
	f.AdvanceTo(t0)
	assert.Equal(t, t0.Add(time.Hour), f.Now())
}

func TestFakeBlockUntil(t *testing.T) {
	f := clock.NewFake(t0)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 3 {
			f.AfterFunc(time.Minute, func() {})
		}
	}()
	f.BlockUntil(3)
	wg.Wait()
	assert.Equal(t, 3, f.Pending())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, f.BlockUntilContext(ctx, 4), context.Canceled)
}

func TestFakeConcurrentUse(t *testing.T) {
	f := clock.NewFake(t0)
	var mu sync.Mutex
	count := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				tm := f.AfterFunc(time.Second, func() {
					mu.Lock()
					count++
					mu.Unlock()
				})
				_ = f.Now()
				f.Advance(time.Millisecond)
				_ = tm
			}
		}()
	}
	wg.Wait()
	f.Advance(time.Hour)
	assert.Equal(t, 400, count)
}

func TestReal(t *testing.T) {
	c := clock.Real()
	before := time.Now()
	assert.False(t, c.Now().Before(before))
	done := make(chan struct{})
	c.AfterFunc(0, func() { close(done) })
	<-done
	tm := c.AfterFunc(time.Hour, func() {})
	assert.True(t, tm.Stop())
}

func TestScaled(t *testing.T) {
	_, err := clock.NewScaled(0)
	require.ErrorIs(t, err, clock.ErrInvalidScale)
	_, err = clock.NewScaled(-1)
	require.ErrorIs(t, err, clock.ErrInvalidScale)

	s, err := clock.NewScaled(0.001)
	require.NoError(t, err)
	assert.Equal(t, 0.001, s.Factor())
	assert.Equal(t, 2880*time.Millisecond, s.Scale(48*time.Minute))
	big, err := clock.NewScaled(1e12)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(1<<63-1), big.Scale(time.Hour))

	done := make(chan struct{})
	s.AfterFunc(time.Millisecond, func() { close(done) }) // 1 µs of real time
	<-done
	tm := s.AfterFunc(time.Hour*1000000, func() {})
	assert.True(t, tm.Stop())
	assert.False(t, s.Now().IsZero())

	// A second of wall time is a thousand seconds on the clock's timers.
	assert.GreaterOrEqual(t, clock.Since(s, time.Now().Add(-time.Second)), 1000*time.Second)
	assert.Equal(t, time.Duration(1<<63-1), clock.Since(s, time.Time{}))
	tiny, err := clock.NewScaled(1e-300)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1<<63), clock.Since(tiny, time.Now().Add(time.Hour)))
}

func TestSinceOnClocksWithoutTheirOwn(t *testing.T) {
	t.Parallel()
	f := clock.NewFake(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	start := f.Now()
	f.Advance(90 * time.Second)
	assert.Equal(t, 90*time.Second, clock.Since(f, start))
	assert.GreaterOrEqual(t, clock.Since(clock.Real(), time.Now().Add(-time.Second)), time.Second)
}
