package streamtest

import (
	"io"
	"runtime"
	"sync"
	"time"
)

// patternLen is prime so that a misplaced 4/32/64 KiB chunk changes a
// checksum of the stream.
const patternLen = 4093

var pattern = func() []byte {
	p := make([]byte, patternLen)
	for i := range p {
		p[i] = byte(i*131 + i>>5)
	}
	return p
}()

// Pattern is a deterministic io.ReaderAt of Size bytes that allocates
// nothing: byte i is the same function of i on every read.
type Pattern struct{ Size int64 }

// ReadAt fills p with the bytes at off; io.EOF past Size.
func (f Pattern) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.Size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.Size-off))
	for done := 0; done < n; {
		done += copy(p[done:n], pattern[(off+int64(done))%patternLen:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// jpegHead is the start of a JFIF file: enough for content sniffing.
var jpegHead = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}

// JPEG is Pattern behind a JPEG signature, for clients that sniff the
// content type before they upload.
type JPEG struct{ Size int64 }

// ReadAt fills p with the bytes at off; io.EOF past Size.
func (s JPEG) ReadAt(p []byte, off int64) (int, error) {
	n, err := Pattern(s).ReadAt(p, off)
	if off < int64(len(jpegHead)) {
		copy(p[:n], jpegHead[off:])
	}
	return n, err
}

// Sampler records the peak of the live heap (HeapAlloc) from Start to
// Stop, sampled every millisecond. A sample can only miss a peak, never
// invent one.
type Sampler struct {
	base uint64
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

// Start collects garbage, takes the heap as the baseline and starts
// sampling.
func Start() *Sampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := &Sampler{base: ms.HeapAlloc, peak: ms.HeapAlloc, stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			s.peak = max(s.peak, ms.HeapAlloc)
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling, takes a last sample (so what is still live at
// the end counts even when the work ran between two ticks) and returns
// the peak growth over the baseline, in bytes.
func (s *Sampler) Stop() int64 {
	close(s.stop)
	s.wg.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.peak = max(s.peak, ms.HeapAlloc)
	return int64(s.peak) - int64(s.base)
}

// PeakGrowth runs fn and returns the largest growth of the live heap over
// its value before fn.
func PeakGrowth(fn func()) int64 {
	s := Start()
	fn()
	return s.Stop()
}
