package matting

import (
	"runtime"
	"sync"
)

// parallelRange splits [0,n) into contiguous chunks run on up to GOMAXPROCS
// goroutines. Callers only use it for work whose per-index results are
// independent, so the output never depends on the number of goroutines.
func parallelRange(n int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 || n < 2 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// reduceBlock is the fixed block size of deterministic reductions: partial
// results are computed per block (in parallel) and combined in block order,
// so floating-point sums do not depend on the number of goroutines.
const reduceBlock = 32

// blockReduce runs fn for every block of rows [y0,y1) of a height-h image,
// returning one partial result per block, in order.
func blockReduce[T any](h int, fn func(y0, y1 int) T) []T {
	nb := (h + reduceBlock - 1) / reduceBlock
	out := make([]T, nb)
	parallelRange(nb, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			out[b] = fn(b*reduceBlock, min((b+1)*reduceBlock, h))
		}
	})
	return out
}
