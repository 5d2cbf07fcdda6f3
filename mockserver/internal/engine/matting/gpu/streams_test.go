//go:build linux

package gpu

import (
	"context"
	"errors"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// The device's workers on the fake driver: several jobs in flight at once,
// each on its own stream and thread; device memory bounded by
// Options.MaxRuns whatever the number of callers, and all of it freed at
// Close; a driver error fails only the removal that hit it.

// TestStreamsJobsInFlight checks that Streams jobs run at once: each job
// waits until all have started, which one worker alone never lets happen,
// and each runs on a stream of its own.
func TestStreamsJobsInFlight(t *testing.T) {
	t.Parallel()
	const n = 3
	f := newFakeDriver()
	d, err := openDevice(f, deviceConfig{streams: n, ptx: kernelsPTX})
	require.NoError(t, err)
	var (
		wg, arrived sync.WaitGroup
		mu          sync.Mutex
		streams     = map[handle]bool{}
	)
	all := make(chan struct{})
	arrived.Add(n)
	go func() { arrived.Wait(); close(all) }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard: only a hang would reach it
	defer cancel()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := d.do(context.Background(), func(w *worker) error {
				mu.Lock()
				streams[w.stream] = true
				mu.Unlock()
				arrived.Done()
				select {
				case <-all:
					return w.sync()
				case <-ctx.Done():
					return errors.New("the jobs were not in flight at once")
				}
			})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Len(t, streams, n, "a stream per job in flight")
	require.NoError(t, d.close())
	threads, live, retained, nStreams, modules := f.snapshot()
	assert.Equal(t, n, threads, "one thread per worker")
	assert.Zero(t, live+retained+nStreams+modules, "everything released at close")
}

// TestMaxRunsBoundsDeviceMemory runs 32 removals at once with MaxRuns 2:
// the device memory in use never exceeds twice that of one removal
// alone, and Close frees all of it.
func TestMaxRunsBoundsDeviceMemory(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 320, 240))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	ctx := context.Background()
	peakOf := func(callers, maxRuns int) uint64 {
		f := newFakeDriver()
		e, err := newEngine(f, Options{Streams: 2, MaxRuns: maxRuns, MaxIdleBytes: 1})
		require.NoError(t, err)
		var wg sync.WaitGroup
		for i := 0; i < callers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := e.RemoveAndComposite(ctx, img, matting.Options{}, matting.Background{})
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		_, peak := e.dev.pool.usage()
		require.NoError(t, e.Close())
		_, live, _, _, _ := f.snapshot()
		assert.Zero(t, live, "every device buffer freed at Close")
		return peak
	}
	one := peakOf(1, 1)
	require.NotZero(t, one)
	many := peakOf(32, 2)
	assert.LessOrEqual(t, many, 2*one, "32 callers, 2 runs at most")
	t.Logf("device bytes at most: one removal %d, 32 at once with MaxRuns 2: %d", one, many)
}

// TestDriverErrorFailsOnlyItsRemoval fails one launch while eight
// removals run at once on four streams: exactly one removal fails, with
// the *DriverError, the others and a later one succeed, and no buffer is
// left at Close.
func TestDriverErrorFailsOnlyItsRemoval(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{Streams: 4})
	require.NoError(t, err)
	img := image.NewNRGBA(image.Rect(0, 0, 160, 120))
	ctx := context.Background()
	f.mu.Lock()
	f.failOn["cuLaunchKernel"] = 300 // within the removals below, whichever hits it
	f.mu.Unlock()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.RemoveBackground(ctx, img, matting.Options{})
			if err != nil {
				var de *DriverError
				assert.ErrorAs(t, err, &de)
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, failed, "only the removal that hit the error fails")
	_, err = e.RemoveBackground(ctx, img, matting.Options{})
	assert.NoError(t, err, "the engine goes on")
	require.NoError(t, e.Close())
	_, live, retained, streams, modules := f.snapshot()
	assert.Zero(t, live+retained+streams+modules)
}
