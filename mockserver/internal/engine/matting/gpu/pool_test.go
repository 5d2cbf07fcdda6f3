//go:build linux

package gpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSizeClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, want uint64 }{
		{0, poolGranule}, {1, poolGranule}, {poolGranule, poolGranule},
		{poolGranule + 1, 2 * poolGranule}, {48_000_000, 48_037_888},
	} {
		assert.Equal(t, c.want, sizeClass(c.n), "n=%d", c.n)
	}
}

func TestPoolReusesBySize(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	p := newBufferPool(f, 0)
	a, err := p.get(1000)
	require.NoError(t, err)
	require.NoError(t, p.put(a, 1000))
	b, err := p.get(2000) // same class
	require.NoError(t, err)
	assert.Equal(t, a, b, "reused")
	c, err := p.get(poolGranule + 1) // another class
	require.NoError(t, err)
	assert.NotEqual(t, a, c)
	assert.Equal(t, 2, f.allocs)
	require.NoError(t, p.put(b, 2000))
	require.NoError(t, p.put(c, poolGranule+1))
	assert.Equal(t, uint64(3*poolGranule), p.idle)
	assert.Zero(t, p.live)
	require.NoError(t, p.drain())
	assert.Zero(t, p.idle)
	assert.Equal(t, 2, f.frees)
	assert.Empty(t, f.mem)
}

func TestPoolMaxIdle(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	p := newBufferPool(f, poolGranule)
	a, _ := p.get(10)
	b, _ := p.get(10)
	require.NoError(t, p.put(a, 10))
	require.NoError(t, p.put(b, 10)) // over the bound: freed
	assert.Equal(t, 1, f.frees)
	assert.Equal(t, uint64(poolGranule), p.idle)
}

func TestPoolOutOfMemoryDrainsAndRetries(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	p := newBufferPool(f, 0)
	a, _ := p.get(10)
	require.NoError(t, p.put(a, 10))
	calls := 0
	f.fail["cuMemAlloc"] = 2
	// fail once: the pool frees its idle buffer and tries again
	orig := f.fail
	_ = orig
	p.drv = oomOnce{fakeDriver: f, calls: &calls}
	b, err := p.get(poolGranule * 4)
	require.NoError(t, err)
	assert.NotZero(t, b)
	assert.Equal(t, 2, calls)
	assert.Zero(t, p.idle)
}

// oomOnce fails the first MemAlloc with CUDA_ERROR_OUT_OF_MEMORY.
type oomOnce struct {
	*fakeDriver
	calls *int
}

func (o oomOnce) MemAlloc(ptr *devicePtr, size uint64) result {
	*o.calls++
	if *o.calls == 1 {
		return 2
	}
	o.fakeDriver.fail["cuMemAlloc"] = 0
	return o.fakeDriver.MemAlloc(ptr, size)
}
