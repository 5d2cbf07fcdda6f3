package gpu

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// k elements of any pooled type make a slice of at least minPooledBytes.
const k = minPooledBytes

// TestHostPoolReusesByTypeAndLength checks that a returned slice comes
// back for the same element type and length only, and that the idle count
// follows.
func TestHostPoolReusesByTypeAndLength(t *testing.T) {
	t.Parallel()
	p := newHostPool(1 << 30)
	h := hostSlices{pool: p}
	f := h.float32s(k)
	b := h.boolSlice(k)
	d := h.float64s(k)
	assert.Zero(t, p.idleBytes())
	h.release()
	assert.Equal(t, int64(4*k+k+8*k), p.idleBytes())

	h2 := hostSlices{pool: p}
	assert.Same(t, &f[0], &h2.float32s(k)[0], "same type and length: reused")
	assert.NotSame(t, &b[0], &h2.boolSlice(k + 1)[0], "other length: new")
	assert.Same(t, &b[0], &h2.boolSlice(k)[0])
	assert.Same(t, &d[0], &h2.float64s(k)[0])
	assert.Zero(t, p.idleBytes())
	assert.NotSame(t, &f[0], &h2.float32s(k)[0], "none left: new")
	h2.release()
	assert.Equal(t, int64(2*4*k+(k+1)+k+8*k), p.idleBytes())
}

// TestHostPoolKeepsWithinItsBound checks the bound: slices too small or
// larger than the bound are not kept, a slice that does not fit evicts
// idle slices of other sizes (not of its own) first, and the default.
func TestHostPoolKeepsWithinItsBound(t *testing.T) {
	t.Parallel()
	p := newHostPool(10 * k)
	h := hostSlices{pool: p}
	h.float32s(k)      // 4k bytes: kept
	h.float32s(k)      // 4k more: kept (8k)
	h.boolSlice(k - 1) // under minPooledBytes: not kept
	h.float64s(2 * k)  // 16k: over the bound itself: not kept
	h.release()
	assert.Equal(t, int64(8*k), p.idleBytes())

	// 3k bools do not fit next to 8k: the float32 slices of another
	// size are evicted for them.
	h = hostSlices{pool: p}
	h.boolSlice(3 * k)
	h.release()
	assert.Equal(t, int64(3*k), p.idleBytes())
	assert.Empty(t, p.f32)

	// Slices of the same length as the newcomer are not evicted for it.
	h = hostSlices{pool: p}
	for range 6 {
		h.boolSlice(3 * k)
	}
	h.release()
	assert.Equal(t, int64(9*k), p.idleBytes(), "three of six kept")
	assert.Len(t, p.bools[3*k], 3)

	assert.Equal(t, int64(defaultMaxIdleHostBytes), newHostPool(0).maxIdle)
}

// TestHostPoolDrain checks that drain lets the idle slices go and that
// nothing returned later is kept (a run closing after its device).
func TestHostPoolDrain(t *testing.T) {
	t.Parallel()
	p := newHostPool(1 << 30)
	h := hostSlices{pool: p}
	h.float32s(k)
	h.release()
	require.Positive(t, p.idleBytes())
	p.drain()
	assert.Zero(t, p.idleBytes())
	h.float32s(k)
	h.release()
	assert.Zero(t, p.idleBytes())
}

// TestHostPoolConcurrentRuns has many goroutines take, fill, check and
// return slices of a few lengths: no slice is handed to two holders at
// once (run it with -race).
func TestHostPoolConcurrentRuns(t *testing.T) {
	t.Parallel()
	p := newHostPool(1 << 20)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				h := hostSlices{pool: p}
				n := k << (i % 3)
				s := h.float32s(n)
				m := h.boolSlice(n)
				for k := range s {
					s[k] = float32(g)
					m[k] = g%2 == 0
				}
				for k := range s {
					if s[k] != float32(g) || m[k] != (g%2 == 0) {
						t.Errorf("goroutine %d: slice changed while held", g)
						return
					}
				}
				h.release()
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, p.idleBytes(), int64(1<<20))
}
