package matting

import (
	"context"
	"errors"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// sequentialPlateSums is the clean plate's accumulation as newPlate did it
// before it was split and run in bands: one loop over the image.
func sequentialPlateSums(w, h int, lin []float32, use []bool, cell int) []float64 {
	gw, gh := (w+cell-1)/cell, (h+cell-1)/cell
	sums := make([]float64, 4*gw*gh)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			if !use[p] {
				continue
			}
			c := 4 * ((y/cell)*gw + x/cell)
			sums[c] += float64(lin[3*p])
			sums[c+1] += float64(lin[3*p+1])
			sums[c+2] += float64(lin[3*p+2])
			sums[c+3]++
		}
	}
	return sums
}

// TestPlateSumsInBands: the banded accumulation gives the one-loop sums
// bit for bit, at sizes with partial cells and with fewer cell rows than
// bands.
func TestPlateSumsInBands(t *testing.T) {
	t.Parallel()
	for _, sz := range [][3]int{{1, 1, 4}, {7, 3, 4}, {64, 48, 4}, {97, 71, 5}, {300, 7, 4}, {5, 300, 6}, {333, 250, 6}} {
		w, h, cell := sz[0], sz[1], sz[2]
		r := rand.New(rand.NewPCG(uint64(w), uint64(h)))
		lin := make([]float32, 3*w*h)
		use := make([]bool, w*h)
		for i := range lin {
			lin[i] = r.Float32() * 1.3
		}
		for i := range use {
			use[i] = r.IntN(3) != 0
		}
		want := sequentialPlateSums(w, h, lin, use, cell)
		got := ReferencePlateSums(w, h, lin, use, cell)
		require.Len(t, got, len(want))
		for i := range want {
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%dx%d cell %d: sum %d", w, h, cell, i)
		}
	}
}

// TestSamplePlate checks the choice of samples against its definition.
func TestSamplePlate(t *testing.T) {
	t.Parallel()
	const w, h = 90, 70
	r := rand.New(rand.NewPCG(3, 4))
	in := &PlateInput{Mask: make([]bool, w*h), Dist: make([]float32, w*h), Shadowed: make([]bool, w*h), T: 10, Radius: 3, Cell: 4}
	for y := 30; y < 40; y++ {
		for x := 40; x < 50; x++ {
			in.Mask[y*w+x] = true
		}
	}
	for p := range in.Dist {
		in.Dist[p] = []float32{0, 4.99, 5, 7, float32(math.NaN())}[r.IntN(5)]
		in.Shadowed[p] = r.IntN(7) == 0
	}
	lin := make([]float32, 3*w*h)
	for i := range lin {
		lin[i] = r.Float32()
	}
	s := ReferenceSamplePlate(w, h, lin, in)
	count := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			near := x >= 37 && x < 53 && y >= 27 && y < 43
			want := !near && !in.Shadowed[p] && in.Dist[p] < 5
			require.Equal(t, want, s.Use[p], "(%d,%d)", x, y)
			if want {
				count++
			}
		}
	}
	assert.Equal(t, count, s.Count)
	assert.Equal(t, sequentialPlateSums(w, h, lin, s.Use, 4), s.Sums)
}

// plateStages is cpuStages whose runs are PlateSamplers computing the
// samples with the reference, or failing.
type plateStages struct {
	cpuStages
	calls *int
	fail  error // returned by SamplePlate when set
	short bool  // SamplePlate returns too few sums
}

type plateRun struct {
	*cpuRun
	s plateStages
}

func (s plateStages) Begin(ctx context.Context, img *image.NRGBA) (StageRun, error) {
	r, err := s.cpuStages.Begin(ctx, img)
	if err != nil {
		return nil, err
	}
	return &plateRun{cpuRun: r.(*cpuRun), s: s}, nil
}

func (r *plateRun) SamplePlate(_ context.Context, in *PlateInput) (*PlateSamples, error) {
	*r.s.calls++
	if r.s.fail != nil {
		return nil, r.s.fail
	}
	out := ReferenceSamplePlate(r.a.w, r.a.h, r.a.lin, in)
	if r.s.short {
		out.Sums = out.Sums[:len(out.Sums)-4]
	}
	return out, nil
}

// TestAcceleratedPlateSampler: the pipeline calls SamplePlate between the
// rounds and gives the CPU engine's bytes; a SamplePlate error, or a
// result of the wrong size, fails the removal with it after the CPU
// finished the mask.
func TestAcceleratedPlateSampler(t *testing.T) {
	t.Parallel()
	img, _ := synth.Product(2, 320, 240, synth.Gradient)
	ctx := context.Background()
	want, err := NewCPU().RemoveBackground(ctx, img, Options{})
	require.NoError(t, err)
	calls, runs := 0, 0
	got, err := NewAccelerated(plateStages{cpuStages: cpuStages{runs: &runs}, calls: &calls}).RemoveBackground(ctx, img, Options{})
	require.NoError(t, err)
	assert.Positive(t, calls, "SamplePlate called")
	assert.Equal(t, goldenHash(want), goldenHash(got))

	boom := errors.New("device lost")
	calls = 0
	_, err = NewAccelerated(plateStages{cpuStages: cpuStages{runs: &runs}, calls: &calls, fail: boom}).RemoveBackground(ctx, img, Options{})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 1, calls, "not called after the device's error")
	calls = 0
	_, err = NewAccelerated(plateStages{cpuStages: cpuStages{runs: &runs}, calls: &calls, short: true}).RemoveBackground(ctx, img, Options{})
	require.ErrorContains(t, err, "do not match the analysis size")
	assert.Equal(t, 1, calls)
	assert.Equal(t, 3, runs, "every run closed")
}
