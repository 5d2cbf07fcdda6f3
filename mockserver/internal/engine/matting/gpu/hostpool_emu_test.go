//go:build cuda && linux

package gpu

import (
	"context"
	"image"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// TestEmulatedRunsRecycleResults checks that a closed run's result slices
// go back to the device's host pool and that the next run of the same size
// downloads into them.
func TestEmulatedRunsRecycleResults(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	img, _ := synth.Product(2, 320, 240, synth.Gradient)
	ctx := context.Background()
	first := map[*float32]bool{}
	for i := 0; i < 2; i++ {
		r, err := stages{e.dev}.Begin(ctx, img)
		require.NoError(t, err)
		pl, err := r.Analyse(ctx, 1, false)
		require.NoError(t, err)
		dist, plain, _, err := r.BGDistance(ctx, make([]float32, 3*81*61), 81, 61, 4)
		require.NoError(t, err)
		// Slices of one length come back in any order.
		ptrs := []*float32{&pl.Raw[0], &pl.Lin[0], &pl.Lab[0], &dist[0], &plain[0]}
		if i == 0 {
			for _, p := range ptrs {
				first[p] = true
			}
			r.Close()
			assert.Positive(t, e.dev.host.idleBytes(), "closed run's slices kept")
			continue
		}
		for _, p := range ptrs {
			assert.True(t, first[p], "second run reuses the first run's slices")
		}
		r.Close()
	}
}

// TestEmulatedConcurrentRemovalsOwnTheirResults runs removals of different
// images (general and portrait, with and without spill reduction) from
// many goroutines on one engine, so that runs take and return pooled
// slices while others use theirs: every matte equals the one removed
// alone.
func TestEmulatedConcurrentRemovalsOwnTheirResults(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	type job struct {
		img *image.NRGBA
		o   matting.Options
	}
	var jobs []job
	for seed := int64(1); seed <= 3; seed++ {
		img, _ := synth.Product(seed, 320, 240, synth.Gradient)
		jobs = append(jobs, job{img, matting.Options{SpillReduction: seed%2 == 0, Preprocess: seed == 3}})
	}
	pimg, _, face := synth.Portrait(1, 320, 240)
	jobs = append(jobs, job{pimg, matting.Options{Mode: matting.ModePortrait, Faces: []image.Rectangle{face}}})
	want := make([]*matting.Matte, len(jobs))
	for i, j := range jobs {
		m, err := e.RemoveBackground(ctx, j.img, j.o)
		require.NoError(t, err)
		want[i] = m
	}
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := e.RemoveBackground(ctx, j.img, j.o)
				if assert.NoError(t, err) {
					assert.Equal(t, want[i].Alpha.Pix, got.Alpha.Pix, "job %d alpha", i)
					if want[i].Foreground != nil {
						assert.Equal(t, want[i].Foreground.Pix, got.Foreground.Pix, "job %d foreground", i)
					}
				}
			}()
		}
	}
	wg.Wait()
}
