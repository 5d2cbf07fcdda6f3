package poll

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUntilFakeClock: on a fake clock a 10 s job is polled with the
// doubling, capped delays and detected at the first fetch after it ends.
func TestUntilFakeClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := NewFakeClock(t0)
	var at []time.Duration
	o := Options{MinDelay: time.Second, MaxDelay: 4 * time.Second, Clock: clk}
	v, err := Drive(clk, func() (time.Duration, error) {
		return Until(context.Background(), o, func(context.Context) (time.Duration, bool, error) {
			el := clk.Now().Sub(t0)
			at = append(at, el)
			return el, el >= 10*time.Second, nil
		})
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 10*time.Second)
	// Delays are in [d/2, d] for d = 1, 2, 4, 4, ... s.
	require.GreaterOrEqual(t, len(at), 4)
	for i := 1; i < len(at); i++ {
		d := min(time.Second<<(i-1), 4*time.Second)
		gap := at[i] - at[i-1]
		assert.True(t, gap >= d/2 && gap <= d, "gap %d: %s not in [%s, %s]", i, gap, d/2, d)
	}
	assert.Less(t, v-10*time.Second, 4*time.Second+time.Nanosecond, "detected within one max delay")
}

// TestUntilFakeClockMaxWait: MaxWait runs out on the fake clock, exactly.
func TestUntilFakeClockMaxWait(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := NewFakeClock(t0)
	o := Options{MinDelay: time.Second, MaxDelay: 4 * time.Second, MaxWait: 30 * time.Second, Clock: clk}
	_, err := Drive(clk, func() (int, error) {
		return Until(context.Background(), o, func(context.Context) (int, bool, error) { return 1, false, nil })
	})
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 30*time.Second, te.Waited)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Equal(t, 0, clk.Pending(), "no timer left behind")
}
