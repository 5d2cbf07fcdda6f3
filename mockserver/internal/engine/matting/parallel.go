package matting

import "github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"

// reduceBlock is the fixed block size of deterministic reductions: partial
// results are computed per block (in parallel) and combined in block order,
// so floating-point sums do not depend on the number of goroutines.
const reduceBlock = 32

// blockReduce runs fn for every block of rows [y0,y1) of a height-h image,
// returning one partial result per block, in order.
func blockReduce[T any](h int, fn func(y0, y1 int) T) []T {
	nb := (h + reduceBlock - 1) / reduceBlock
	out := make([]T, nb)
	parallel.Rows(nb, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			out[b] = fn(b*reduceBlock, min((b+1)*reduceBlock, h))
		}
	})
	return out
}
