package gpu

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHostPoolReusesByTypeAndLength checks that a returned slice comes
// back for the same element type and length only, and that the idle count
// follows.
func TestHostPoolReusesByTypeAndLength(t *testing.T) {
	t.Parallel()
	p := newHostPool(1 << 20)
	h := hostSlices{pool: p}
	f := h.float32s(100)
	b := h.boolSlice(100)
	d := h.float64s(10)
	assert.Zero(t, p.idleBytes())
	h.release()
	assert.Equal(t, int64(400+100+80), p.idleBytes())

	h2 := hostSlices{pool: p}
	assert.Same(t, &f[0], &h2.float32s(100)[0], "same type and length: reused")
	assert.NotSame(t, &b[0], &h2.boolSlice(99)[0], "other length: new")
	assert.Same(t, &b[0], &h2.boolSlice(100)[0])
	assert.Same(t, &d[0], &h2.float64s(10)[0])
	assert.Zero(t, p.idleBytes())
	assert.NotSame(t, &f[0], &h2.float32s(100)[0], "none left: new")
	h2.release()
	assert.Equal(t, int64(2*400+99+100+80), p.idleBytes())
}

// TestHostPoolKeepsWithinItsBound checks that slices beyond the bound are
// left to the garbage collector, and the default bound.
func TestHostPoolKeepsWithinItsBound(t *testing.T) {
	t.Parallel()
	p := newHostPool(1000)
	h := hostSlices{pool: p}
	h.float32s(200) // 800 bytes: kept
	h.float32s(100) // 400 more: over the bound, dropped
	h.boolSlice(150)
	h.boolSlice(0) // nothing to keep
	h.release()
	assert.Equal(t, int64(800+150), p.idleBytes())
	assert.Equal(t, int64(defaultMaxIdleHostBytes), newHostPool(0).maxIdle)
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
				n := 64 << (i % 3)
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
