package poll

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func upper(n time.Duration) time.Duration { return n }
func lower(time.Duration) time.Duration   { return 0 }

func TestComputeDelay(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	cases := []struct {
		name                string
		attempt             int
		min, max, remaining time.Duration
		jitter              func(time.Duration) time.Duration
		want                time.Duration
	}{
		{"first step, upper", 0, 100 * ms, 10 * time.Second, -1, upper, 100 * ms},
		{"first step, lower", 0, 100 * ms, 10 * time.Second, -1, lower, 50 * ms},
		{"doubles", 3, 100 * ms, 10 * time.Second, -1, upper, 800 * ms},
		{"capped", 10, 100 * ms, 10 * time.Second, -1, upper, 10 * time.Second},
		{"capped, lower", 10, 100 * ms, 10 * time.Second, -1, lower, 5 * time.Second},
		{"no overflow", 1000, 100 * ms, 10 * time.Second, -1, upper, 10 * time.Second},
		{"no overflow near 62", 61, time.Hour, 2 * time.Hour, -1, upper, 2 * time.Hour},
		{"trimmed to remaining", 10, time.Second, time.Minute, 3 * ms, upper, 3 * ms},
		{"no time left", 0, time.Second, time.Minute, 0, upper, 0},
		{"negative attempt", -1, 100 * ms, time.Second, -1, upper, 100 * ms},
		{"jitter out of range is clamped", 0, 100 * ms, time.Second, -1, func(time.Duration) time.Duration { return time.Hour }, 100 * ms},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ComputeDelayJitter(tc.attempt, tc.min, tc.max, tc.remaining, tc.jitter))
		})
	}
}

// TestPollSpread: the wait loop's delays lie in [0.8·d, d], retries' in
// [d/2, d] (the same exponential step d).
func TestPollSpread(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	for _, tc := range []struct {
		spread float64
		jitter func(time.Duration) time.Duration
		want   time.Duration
	}{
		{pollSpread, lower, 640 * ms},
		{pollSpread, upper, 800 * ms},
		{retrySpread, lower, 400 * ms},
		{retrySpread, upper, 800 * ms},
	} {
		assert.Equal(t, tc.want, computeDelay(3, 100*ms, 10*time.Second, -1, tc.spread, tc.jitter), "spread %v", tc.spread)
	}
}

func TestComputeDelayRandomStaysInRange(t *testing.T) {
	t.Parallel()
	for attempt := range 8 {
		for range 50 {
			d := ComputeDelay(attempt, 100*time.Millisecond, 10*time.Second, -1)
			step := min(100*time.Millisecond<<attempt, 10*time.Second)
			assert.GreaterOrEqual(t, d, step/2)
			assert.LessOrEqual(t, d, step)
		}
	}
}

func TestUntilDoneAndProgress(t *testing.T) {
	t.Parallel()
	var seen []any
	n := 0
	v, err := Until(context.Background(), Options{OnProgress: func(v any) { seen = append(seen, v) }},
		func(context.Context) (int, bool, error) { n++; return n, n == 3, nil })
	require.NoError(t, err)
	assert.Equal(t, 3, v)
	assert.Equal(t, []any{1, 2, 3}, seen)
}

func TestUntilFetchError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	n := 0
	v, err := Until(context.Background(), Options{}, func(context.Context) (int, bool, error) {
		n++
		if n == 2 {
			return 0, false, boom
		}
		return n, false, nil
	})
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 1, v, "the last good value comes back with the error")
}

// A fetch that blocks until its context ends stands for a status answer
// whose body stalls: MaxWait must end it.
func TestUntilMaxWaitBoundsAFetchInFlight(t *testing.T) {
	t.Parallel()
	n := 0
	v, err := Until(context.Background(), Options{MaxWait: 50 * time.Millisecond},
		func(ctx context.Context) (int, bool, error) {
			n++
			if n == 1 {
				return 7, false, nil
			}
			<-ctx.Done()
			return 0, false, ctx.Err()
		})
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1, te.Fetches)
	assert.Equal(t, 7, v)
}

func TestUntilMaxWaitInADelay(t *testing.T) {
	t.Parallel()
	_, err := Until(context.Background(), Options{MinDelay: time.Hour, MaxDelay: time.Hour, MaxWait: 20 * time.Millisecond},
		func(context.Context) (int, bool, error) { return 1, false, nil })
	assert.ErrorIs(t, err, ErrTimeout)
}

func TestUntilCancelledPromptly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Until(ctx, Options{MinDelay: time.Hour, MaxDelay: time.Hour, MaxWait: 2 * time.Hour},
		func(context.Context) (int, bool, error) { cancel(); return 1, false, nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrTimeout)
}

func TestUntilContextDeadlineIsTheContextsError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := Until(ctx, Options{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxWait: time.Hour},
		func(ctx context.Context) (int, bool, error) { return 1, false, nil })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestUntilRejectsBadOptions(t *testing.T) {
	t.Parallel()
	_, err := Until(context.Background(), Options{MinDelay: -1, MaxDelay: -1, MaxWait: -1},
		func(context.Context) (int, bool, error) { t.Fatal("fetch called"); return 0, false, nil })
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"MinDelay", "MaxDelay", "MaxWait"}, ve.Fields())
	//lint:ignore SA1012 a nil context is the case under test
	_, err = Until[int](nil, Options{}, nil)
	assert.Error(t, err)
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.WithDefaults(time.Second, time.Minute)
	assert.Equal(t, Options{MinDelay: time.Second, MaxDelay: time.Minute}, o)
	o = Options{MinDelay: time.Hour}.WithDefaults(time.Second, time.Minute)
	assert.Equal(t, time.Hour, o.MaxDelay)
	// A MaxDelay alone below the default MinDelay caps every delay.
	o = Options{MaxDelay: 100 * time.Millisecond}.WithDefaults(time.Second, time.Minute)
	assert.Equal(t, Options{MinDelay: 100 * time.Millisecond, MaxDelay: 100 * time.Millisecond}, o)
}
