package gpu

import "sync"

// poolGranule is the size class step of pooled device buffers: requests are
// rounded up to a multiple of it, so images of nearly the same size reuse
// each other's buffers.
const poolGranule = 64 << 10

// defaultMaxIdle bounds the bytes of device memory kept in the pool while
// unused.
const defaultMaxIdle = 1 << 30

// sizeClass is the pooled size of a request of n bytes.
func sizeClass(n uint64) uint64 {
	if n == 0 {
		return poolGranule
	}
	return (n + poolGranule - 1) / poolGranule * poolGranule
}

// bufferPool keeps freed device buffers by size class for reuse. The
// device's workers share it (mu).
type bufferPool struct {
	mu      sync.Mutex
	drv     driver
	free    map[uint64][]devicePtr
	idle    uint64 // bytes in free
	maxIdle uint64
	live    int    // buffers handed out and not returned
	inUse   uint64 // bytes (size classes) handed out and not returned
	peak    uint64 // the most inUse has been
}

func newBufferPool(d driver, maxIdle uint64) *bufferPool {
	if maxIdle == 0 {
		maxIdle = defaultMaxIdle
	}
	return &bufferPool{drv: d, free: map[uint64][]devicePtr{}, maxIdle: maxIdle}
}

// get returns a buffer of at least n bytes (its size class).
func (p *bufferPool) get(n uint64) (devicePtr, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := sizeClass(n)
	if l := p.free[c]; len(l) > 0 {
		ptr := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.idle -= c
		p.live++
		p.inUse += c
		p.peak = max(p.peak, p.inUse)
		return ptr, nil
	}
	var ptr devicePtr
	if err := check(p.drv, "cuMemAlloc", p.drv.MemAlloc(&ptr, c)); err != nil {
		// Out of memory with idle buffers of other sizes: free them and
		// try once more.
		if p.idle == 0 {
			return 0, err
		}
		if ferr := p.drainLocked(); ferr != nil {
			return 0, ferr
		}
		if err := check(p.drv, "cuMemAlloc", p.drv.MemAlloc(&ptr, c)); err != nil {
			return 0, err
		}
	}
	p.live++
	p.inUse += c
	p.peak = max(p.peak, p.inUse)
	return ptr, nil
}

// put returns a buffer of a request of n bytes to the pool, or frees it
// when the pool holds maxIdle bytes already.
func (p *bufferPool) put(ptr devicePtr, n uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := sizeClass(n)
	p.live--
	p.inUse -= c
	if p.idle+c > p.maxIdle {
		return check(p.drv, "cuMemFree", p.drv.MemFree(ptr))
	}
	p.free[c] = append(p.free[c], ptr)
	p.idle += c
	return nil
}

// drain frees every idle buffer and returns the first error.
func (p *bufferPool) drain() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drainLocked()
}

// usage returns the bytes handed out now and at most so far.
func (p *bufferPool) usage() (inUse, peak uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inUse, p.peak
}

// drainLocked is drain with mu held.
func (p *bufferPool) drainLocked() error {
	var first error
	for c, l := range p.free {
		for _, ptr := range l {
			if err := check(p.drv, "cuMemFree", p.drv.MemFree(ptr)); err != nil && first == nil {
				first = err
			}
		}
		delete(p.free, c)
	}
	p.idle = 0
	return first
}
