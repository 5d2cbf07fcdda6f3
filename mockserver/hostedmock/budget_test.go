//go:build heavy

package hostedmock_test

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

// engineBytesPerPixel is the engine's memory cost of an image being
// processed, as the package documentation states it ("about 9 bytes a
// pixel"); the engine measures about 6 live bytes a pixel, the rest is
// headroom for the collector.
const engineBytesPerPixel = 9

// heapPeak samples the heap in use until stop is closed and returns the
// highest sample. A sample can only miss a peak, never invent one.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return out
}

// TestMemoryBudgetBoundsPeakHeap: two large images that together exceed
// the memory budget (9.5 MP at the 6 bytes a pixel the hosted mock counts,
// 57 MB) are processed one after the other, so the heap the engine uses
// stays within the budget's pixels at the documented cost a pixel with
// the collector's headroom. Both images would need about twice that at
// once: 2 × 9 MP × 6 B ≈ 108 MB against a bound of 9.5 MP × 9 B ≈ 85 MB,
// while one at a time needs about 55 MB. Not parallel: it owns the heap and the
// collector's setting while it runs. Build tag heavy: .ci/run runs it in
// its heavy step, without the race detector.
func TestMemoryBudgetBoundsPeakHeap(t *testing.T) {
	const (
		side   = 3000      // 9 MP an image
		budget = 9_500_000 // pixels: 57 MB at 6 bytes a pixel
	)
	if raceEnabled {
		t.Skip("measures the engine's heap on 9 MP images: too slow under the race detector (the queue's admission is race-tested in jobqueue)")
	}
	f := newFixture(t, func(o *hostedmock.Options) {
		o.Processor = nil // the reference engine
		o.MemoryBudget = budget * 6
		o.Workers = 2
	})
	img := jpegBytes(t, side, side)
	k1 := f.upload(t, "", img)
	k2 := f.upload(t, "", append(img[:len(img):len(img)], 0)) // other bytes: no cache hit

	// A low GC target keeps the heap in use close to the live heap.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(stop) }) }
	t.Cleanup(done)
	peak := heapPeak(stop)

	id1 := f.start(t, "fileKey="+k1)
	id2 := f.start(t, "fileKey="+k2)
	f.WaitIdle()
	done()
	used := int64(<-peak) - int64(base)

	for _, id := range []string{id1, id2} {
		j, _ := f.status(t, id)
		require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	}
	bound := int64(budget * engineBytesPerPixel)
	t.Logf("peak heap above the baseline: %d MB (%.1f B a pixel of one image); bound: %d MB (budget %d px × %d B)",
		used>>20, float64(used)/(side*side), bound>>20, budget, engineBytesPerPixel)
	assert.Less(t, used, bound, "two queued images stayed within the memory budget")
}
