package gpu

import (
	"sync"
	"unsafe"
)

// minPooledBytes is the smallest slice worth pooling: smaller ones cost
// little to allocate, and keeping them would only grow the bookkeeping.
const minPooledBytes = 16 << 10

// defaultMaxIdleHostBytes bounds the host memory a hostPool keeps idle when
// Options.MaxIdleHostBytes is 0: about five 12 MP removals' results.
const defaultMaxIdleHostBytes = 512 << 20

// hostPool recycles the host slices a run's results are downloaded into
// (the analysis planes, each round's distances, masks and plate samples:
// about 100 MB per 12 MP removal). Allocating them afresh costs Go's
// zeroing and, under load, fresh pages and garbage collection, all of it on
// the host side of the GPU engine. Slices are kept by element type and
// exact length, up to maxIdle bytes in all. A returned slice that would
// exceed the bound first evicts idle slices of other types and lengths
// (the sizes in demand have changed, or several sizes compete), else is
// left to the garbage collector; slices under minPooledBytes and slices
// returned after drain are never kept. A slice taken from the pool holds
// old data: every user overwrites it whole (a download of its full size).
// Safe for concurrent use.
type hostPool struct {
	mu      sync.Mutex
	maxIdle int64
	idle    int64
	drained bool
	f32     map[int][][]float32
	f64     map[int][][]float64
	bools   map[int][][]bool
}

func newHostPool(maxIdle uint64) *hostPool {
	if maxIdle == 0 {
		maxIdle = defaultMaxIdleHostBytes
	}
	return &hostPool{
		maxIdle: int64(min(maxIdle, 1<<62)),
		f32:     map[int][][]float32{},
		f64:     map[int][][]float64{},
		bools:   map[int][][]bool{},
	}
}

// idleBytes reports the bytes kept idle.
func (p *hostPool) idleBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.idle
}

// drain lets every idle slice go and keeps none from now on (the device
// is closed; runs still closing may give theirs back).
func (p *hostPool) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drained = true
	clear(p.f32)
	clear(p.f64)
	clear(p.bools)
	p.idle = 0
}

// evictOthers drops idle lists other than free's list of length n (kind
// is that free map: each element type has one) until need more bytes fit
// the bound or none is left; p.mu is held.
func (p *hostPool) evictOthers(kind any, n int, need int64) {
	for p.idle+need > p.maxIdle {
		if !evictOne(p, p.f32, kind, n) && !evictOne(p, p.f64, kind, n) && !evictOne(p, p.bools, kind, n) {
			return
		}
	}
}

// evictOne drops one idle list of free other than (kind, n), reporting
// whether there was one; p.mu is held.
func evictOne[T any](p *hostPool, free map[int][][]T, kind any, n int) bool {
	_, same := kind.(map[int][][]T)
	for length, l := range free {
		if same && length == n {
			continue
		}
		for _, s := range l {
			p.idle -= sizeOf(s)
		}
		delete(free, length)
		return true
	}
	return false
}

// take returns a slice of length n from free, or a new one.
func take[T any](p *hostPool, free map[int][][]T, n int) []T {
	p.mu.Lock()
	if l := free[n]; len(l) > 0 {
		s := l[len(l)-1]
		l[len(l)-1] = nil
		free[n] = l[:len(l)-1]
		p.idle -= sizeOf(s)
		p.mu.Unlock()
		return s
	}
	p.mu.Unlock()
	return make([]T, n)
}

// give keeps s in free for a later take, when it fits the bound.
func give[T any](p *hostPool, free map[int][][]T, s []T) {
	if len(s) == 0 {
		return
	}
	size := sizeOf(s)
	if size < minPooledBytes || size > p.maxIdle {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drained {
		return
	}
	if p.idle+size > p.maxIdle {
		p.evictOthers(free, len(s), size)
		if p.idle+size > p.maxIdle {
			return
		}
	}
	free[len(s)] = append(free[len(s)], s[:len(s):len(s)])
	p.idle += size
}

func sizeOf[T any](s []T) int64 {
	var zero T
	return int64(len(s)) * int64(unsafe.Sizeof(zero))
}

// hostSlices are the pooled slices one run handed out; they go back to the
// pool together when the run closes, since the pipeline reads them until
// then (see matting.StageRun).
type hostSlices struct {
	pool  *hostPool
	f32   [][]float32
	f64   [][]float64
	bools [][]bool
}

func (h *hostSlices) float32s(n int) []float32 {
	s := take(h.pool, h.pool.f32, n)
	h.f32 = append(h.f32, s)
	return s
}

func (h *hostSlices) float64s(n int) []float64 {
	s := take(h.pool, h.pool.f64, n)
	h.f64 = append(h.f64, s)
	return s
}

func (h *hostSlices) boolSlice(n int) []bool {
	s := take(h.pool, h.pool.bools, n)
	h.bools = append(h.bools, s)
	return s
}

// release gives every slice back to the pool.
func (h *hostSlices) release() {
	for _, s := range h.f32 {
		give(h.pool, h.pool.f32, s)
	}
	for _, s := range h.f64 {
		give(h.pool, h.pool.f64, s)
	}
	for _, s := range h.bools {
		give(h.pool, h.pool.bools, s)
	}
	h.f32, h.f64, h.bools = nil, nil, nil
}
