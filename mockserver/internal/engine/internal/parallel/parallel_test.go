package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestForCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 100, 1001} {
		for _, bands := range []int{-1, 0, 1, 2, 3, 8, 2000} {
			hits := make([]atomic.Int32, n)
			var calls atomic.Int32
			For(n, bands, func(band, lo, hi int) {
				calls.Add(1)
				assert.LessOrEqual(t, lo, hi)
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
			})
			for i := range hits {
				assert.Equal(t, int32(1), hits[i].Load(), "n=%d bands=%d index %d", n, bands, i)
			}
			if n > 0 {
				assert.Equal(t, int32(min(max(bands, 1), n)), calls.Load())
			}
		}
	}
}

func TestBandsAndRows(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	assert.Equal(t, 4, Bands(1000, 32))
	assert.Equal(t, 2, Bands(64, 32))
	assert.Equal(t, 1, Bands(10, 32))
	assert.Equal(t, 1, Bands(0, 0))

	var sum atomic.Int64
	Rows(100, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sum.Add(int64(i))
		}
	})
	assert.Equal(t, int64(4950), sum.Load())
}
