package webhook

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualClock is a clock the test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func begin(t *testing.T, s IdempotencyStore, id string) Claim {
	t.Helper()
	c, err := s.Begin(context.Background(), id)
	require.NoError(t, err)
	return c
}

func TestMemoryStoreLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewMemoryStore(MemoryStoreOptions{})
	assert.Equal(t, ClaimAcquired, begin(t, s, "a"))
	assert.Equal(t, ClaimInProgress, begin(t, s, "a"))
	assert.Equal(t, ClaimAcquired, begin(t, s, "b"), "ids are independent")

	require.NoError(t, s.Abort(ctx, "a"))
	assert.Equal(t, ClaimAcquired, begin(t, s, "a"), "an aborted id is claimable again")
	require.NoError(t, s.Complete(ctx, "a"))
	assert.Equal(t, ClaimDone, begin(t, s, "a"))
	assert.Equal(t, ClaimDone, begin(t, s, "a"))

	// Settling an id that is not claimed is harmless.
	require.NoError(t, s.Abort(ctx, "never"))
	require.NoError(t, s.Abort(ctx, "a"))
	assert.Equal(t, ClaimDone, begin(t, s, "a"), "Abort does not forget a completed id")
	require.NoError(t, s.Complete(ctx, "a"))
	done, inProgress := s.size()
	assert.Equal(t, 1, done)
	assert.Equal(t, 1, inProgress) // "b"
}

func TestMemoryStoreExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &manualClock{now: testTime}
	s := NewMemoryStore(MemoryStoreOptions{TTL: time.Hour, Now: clock.Now})
	for i := 0; i < 10; i++ {
		id := strconv.Itoa(i)
		require.Equal(t, ClaimAcquired, begin(t, s, id))
		require.NoError(t, s.Complete(ctx, id))
		clock.Add(time.Minute)
	}
	// Now at +10 min: ids 0..9 completed at +0..+9 min, expiring at +60..+69.
	clock.Add(50*time.Minute - time.Nanosecond)
	assert.Equal(t, ClaimDone, begin(t, s, "0"), "just before expiry")
	clock.Add(time.Nanosecond + 4*time.Minute) // +64 min: 0..4 expired
	require.Equal(t, ClaimAcquired, begin(t, s, "9-new"))
	done, _ := s.size()
	assert.Equal(t, 5, done, "Begin swept the expired ids")
	assert.Equal(t, ClaimAcquired, begin(t, s, "3"), "an expired id is processed again")
	assert.Equal(t, ClaimDone, begin(t, s, "5"))

	clock.Add(time.Hour)
	require.NoError(t, s.Complete(ctx, "3"))
	done, inProgress := s.size()
	assert.Equal(t, 1, done, "Complete swept too")
	assert.Equal(t, 1, inProgress)
}

func TestMemoryStoreClockGoingBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &manualClock{now: testTime}
	s := NewMemoryStore(MemoryStoreOptions{TTL: time.Hour, Now: clock.Now})
	require.Equal(t, ClaimAcquired, begin(t, s, "late"))
	require.NoError(t, s.Complete(ctx, "late"))
	clock.Add(-30 * time.Minute)
	require.Equal(t, ClaimAcquired, begin(t, s, "early"))
	require.NoError(t, s.Complete(ctx, "early")) // expires at -30+60 = +30 min, behind "late" (+60)
	clock.Add(75 * time.Minute)                  // +45: "early" expired, "late" not, but "late" is first in order
	assert.Equal(t, ClaimAcquired, begin(t, s, "early"), "an expired entry behind a live one is still treated as expired")
	assert.Equal(t, ClaimDone, begin(t, s, "late"))
}

func TestMemoryStoreBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewMemoryStore(MemoryStoreOptions{MaxEntries: 3, Now: fixedClock(testTime)})
	for _, id := range []string{"a", "b", "c", "d"} {
		require.Equal(t, ClaimAcquired, begin(t, s, id))
		require.NoError(t, s.Complete(ctx, id))
	}
	done, _ := s.size()
	assert.Equal(t, 3, done)
	assert.Equal(t, ClaimAcquired, begin(t, s, "a"), "the oldest id was forgotten")
	for _, id := range []string{"b", "c", "d"} {
		assert.Equal(t, ClaimDone, begin(t, s, id))
	}
}

func TestMemoryStoreDefaults(t *testing.T) {
	t.Parallel()
	s := NewMemoryStore(MemoryStoreOptions{TTL: -1, MaxEntries: -1})
	assert.Equal(t, defaultStoreTTL, s.ttl)
	assert.Equal(t, defaultStoreMaxEntries, s.maxEntries)
	assert.NotNil(t, s.now)
}

func TestMemoryStoreConcurrentBegin(t *testing.T) {
	t.Parallel()
	s := NewMemoryStore(MemoryStoreOptions{})
	const n = 32
	claims := make(chan Claim, n)
	var start sync.WaitGroup
	start.Add(1)
	for i := 0; i < n; i++ {
		go func() {
			start.Wait()
			c, err := s.Begin(context.Background(), "same")
			assert.NoError(t, err)
			claims <- c
		}()
	}
	start.Done()
	acquired := 0
	for i := 0; i < n; i++ {
		c := <-claims
		if c == ClaimAcquired {
			acquired++
		} else {
			assert.Equal(t, ClaimInProgress, c)
		}
	}
	assert.Equal(t, 1, acquired)
}

// The zero MemoryStore is ready to use with the defaults, like sync.Mutex:
// a store declared as a struct field or with new must not panic on the
// first delivery.
func TestMemoryStoreZeroValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range map[string]*MemoryStore{"new": new(MemoryStore), "literal": {}} {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				assert.Equal(t, ClaimAcquired, begin(t, s, "a"))
				assert.Equal(t, ClaimInProgress, begin(t, s, "a"))
				require.NoError(t, s.Complete(ctx, "a"))
				assert.Equal(t, ClaimDone, begin(t, s, "a"))
				require.NoError(t, s.Abort(ctx, "b"))
			})
			assert.Equal(t, defaultStoreTTL, s.ttl)
			assert.Equal(t, defaultStoreMaxEntries, s.maxEntries)
		})
	}
	var zero MemoryStore
	require.NoError(t, zero.Complete(ctx, "first call is Complete"))
	assert.Equal(t, ClaimDone, begin(t, &zero, "first call is Complete"))

	// Through the middleware.
	var store MemoryStore
	next := &recordingHandler{}
	h := Middleware(newTestVerifier(t), WithIdempotency(&store))(next)
	assert.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
	assert.Equal(t, http.StatusOK, serve(h, signedRequest(testID, testBody)).Code)
	assert.EqualValues(t, 1, next.calls.Load())
}
