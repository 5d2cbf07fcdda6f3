package matting

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKthIsTheSortedElement checks kth against a sort on inputs that stress
// the partition: distinct values, many duplicates, sorted and reversed
// runs, all equal, and short slices below the sort cut-off.
func TestKthIsTheSortedElement(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(n int) []float32{
		"uniform": func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = rng.Float32() * 100
			}
			return v
		},
		"few-values": func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(rng.IntN(4))
			}
			return v
		},
		"sorted": func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(i / 3)
			}
			return v
		},
		"reversed": func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(n - i)
			}
			return v
		},
		"constant": func(n int) []float32 { return slices.Repeat([]float32{7}, n) },
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, 3, 16, 17, 100, 1001, 20000} {
			in := gen(n)
			sorted := slices.Clone(in)
			slices.Sort(sorted)
			for _, k := range []int{0, n / 4, n / 2, n - 1, int(0.95 * float64(n-1))} {
				got := kth(slices.Clone(in), k)
				assert.Equal(t, sorted[k], got, "%s n=%d k=%d", name, n, k)
			}
		}
	}
}

// TestMedianAndQuantileIndices pins the indices medianOf and quantile
// read (the CPU engine's results depend on them) and their empty case.
func TestMedianAndQuantileIndices(t *testing.T) {
	t.Parallel()
	vals := []float32{5, 1, 4, 2, 3, 0}
	assert.Equal(t, float32(3), medianOf(slices.Clone(vals)))       // index 3 of 0..5
	assert.Equal(t, float32(4), quantile(slices.Clone(vals), 0.95)) // index ⌊0.95·5⌋ = 4
	assert.Equal(t, float32(0), quantile(slices.Clone(vals), 0))    // index 0
	assert.Equal(t, float32(0), medianOf(nil))
	assert.Equal(t, float32(0), quantile(nil, 0.5))
}

// TestKthWithNaNEnds checks that NaNs (which compare neither way) cannot
// make the partition loop forever or index out of range.
func TestKthWithNaNEnds(t *testing.T) {
	t.Parallel()
	nan := float32(math.NaN())
	for _, n := range []int{1, 17, 1000} {
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(i % 5)
			if i%3 == 0 {
				vals[i] = nan
			}
		}
		for _, k := range []int{0, n / 2, n - 1} {
			assert.NotPanics(t, func() { kth(slices.Clone(vals), k) }, "n=%d k=%d", n, k)
		}
	}
}
