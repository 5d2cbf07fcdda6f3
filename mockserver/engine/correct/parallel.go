package correct

import (
	"runtime"
	"sync"
)

// minBandRows keeps bands large enough that goroutine start-up stays
// negligible next to the work in a band.
const minBandRows = 32

// bandCount is how many row bands a pass over h rows uses: one per
// available core, fewer for small images.
func bandCount(h int) int {
	n := runtime.GOMAXPROCS(0)
	if m := h / minBandRows; m < n {
		n = m
	}
	if n < 1 {
		n = 1
	}
	return n
}

// forBands splits rows [0,h) into n contiguous bands and runs fn on each,
// concurrently when n > 1. Band boundaries only decide who does the work:
// every caller produces results that do not depend on n.
func forBands(h, n int, fn func(band, y0, y1 int)) {
	if n <= 1 {
		fn(0, 0, h)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		y0, y1 := h*i/n, h*(i+1)/n
		go func(i, y0, y1 int) {
			defer wg.Done()
			fn(i, y0, y1)
		}(i, y0, y1)
	}
	wg.Wait()
}
