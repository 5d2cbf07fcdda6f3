package transport

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeaderWatchExpires: an attempt not stopped in time is expired once,
// and stop then reports that the deadline came first.
func TestHeaderWatchExpires(t *testing.T) {
	t.Parallel()
	w := newHeaderWatch(time.Millisecond)
	done := make(chan struct{})
	e := w.add(expireFunc(func() { close(done) }))
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the attempt never expired")
	}
	assert.False(t, e.stop(), "expired first")
	// The timer re-arms for later attempts.
	done2 := make(chan struct{})
	w.add(expireFunc(func() { close(done2) }))
	select {
	case <-done2:
	case <-time.After(time.Minute):
		t.Fatal("the second attempt never expired")
	}
}

// TestHeaderWatchStopAndCompact: stopped attempts never expire, and the
// queue does not grow with attempts stopped out of order behind a live one.
func TestHeaderWatchStopAndCompact(t *testing.T) {
	t.Parallel()
	w := newHeaderWatch(time.Hour)
	var fired atomic.Int32
	expire := expireFunc(func() { fired.Add(1) })
	head := w.add(expire) // stays live: everything behind it is out of order
	for range 10_000 {
		require.True(t, w.add(expire).stop())
	}
	w.mu.Lock()
	n := len(w.queue)
	w.mu.Unlock()
	assert.LessOrEqual(t, n, 2*minCompact, "queue length")
	assert.True(t, head.stop())
	w.add(expire).stop()
	w.mu.Lock()
	assert.Len(t, w.queue, 1, "stopped entries at the head are dropped, up to the one added last")
	w.mu.Unlock()
	assert.Zero(t, fired.Load())
	w.timer.Stop()
}

// TestHeaderWatchConcurrent: with deadlines passing while attempts stop,
// each attempt is either stopped or expired, never both, never twice.
func TestHeaderWatchConcurrent(t *testing.T) {
	t.Parallel()
	w := newHeaderWatch(50 * time.Microsecond)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				var calls atomic.Int32
				done := make(chan struct{})
				e := w.add(expireFunc(func() { calls.Add(1); close(done) }))
				if (g+i)%3 == 0 {
					<-done // let it expire
					assert.False(t, e.stop())
				} else if !e.stop() {
					<-done
				}
				assert.LessOrEqual(t, calls.Load(), int32(1))
			}
		}()
	}
	wg.Wait()
}
