// Package parallel splits the engine's row loops across the cores.
//
// Callers only use it for work whose results do not depend on how rows are
// split (each output row depends on its inputs alone, or per-band partial
// results are combined in band order with exact arithmetic), so the
// engine's output is identical for any GOMAXPROCS.
package parallel

import (
	"runtime"
	"sync"
)

// Bands returns how many bands to split n rows into: one per available core
// (GOMAXPROCS), but no more bands than rows, no band shorter than minRows,
// and at least 1.
func Bands(n, minRows int) int {
	b := min(runtime.GOMAXPROCS(0), n)
	if minRows > 0 {
		b = min(b, n/minRows)
	}
	return max(b, 1)
}

// For splits [0,n) into the given number of contiguous bands and runs
// fn(band, lo, hi) on each, concurrently when there is more than one. Band
// i covers [n*i/bands, n*(i+1)/bands). It returns when every call has.
func For(n, bands int, fn func(band, lo, hi int)) {
	if n <= 0 {
		return
	}
	bands = min(max(bands, 1), n)
	if bands == 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(bands)
	for i := range bands {
		lo, hi := n*i/bands, n*(i+1)/bands
		go func() {
			defer wg.Done()
			fn(i, lo, hi)
		}()
	}
	wg.Wait()
}

// Rows runs fn over [0,n) split into one contiguous range per core.
func Rows(n int, fn func(lo, hi int)) {
	For(n, Bands(n, 1), func(_, lo, hi int) { fn(lo, hi) })
}
