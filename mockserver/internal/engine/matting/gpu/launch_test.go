package gpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLaunchConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		grid uint32
	}{
		{-1, 0}, {0, 0}, {1, 1}, {256, 1}, {257, 2}, {12_000_000, 46875},
		{100_000_000, maxGridBlocks}, // capped: the kernels loop
	} {
		g, b := launchConfig(c.n)
		assert.Equal(t, c.grid, g, "n=%d", c.n)
		assert.Equal(t, uint32(blockSize), b)
		if g > 0 {
			assert.GreaterOrEqual(t, int64(g)*int64(b), min(c.n, int64(maxGridBlocks)*blockSize))
		}
	}
}

func TestPackArgs(t *testing.T) {
	t.Parallel()
	s, err := packArgs("piiifii", []any{devicePtr(0xdeadbeef00), -1, int32(7), uint32(9), float32(1.5), true, false})
	require.NoError(t, err)
	assert.Equal(t, []uint64{0xdeadbeef00, 0xffffffff, 7, 9, uint64(math.Float32bits(1.5)), 1, 0}, s)
	_, err = packArgs("i", []any{int(math.MaxInt32) + 1})
	assert.ErrorContains(t, err, "overflows int32")
	_, err = packArgs("i", []any{"x"})
	assert.ErrorContains(t, err, "unsupported type string")
	_, err = packArgs("p", []any{7})
	assert.ErrorContains(t, err, `argument 0 is int, the kernel expects 'p'`)
	_, err = packArgs("i", []any{devicePtr(1)})
	assert.ErrorContains(t, err, `argument 0 is gpu.devicePtr, the kernel expects 'i'`)
}
