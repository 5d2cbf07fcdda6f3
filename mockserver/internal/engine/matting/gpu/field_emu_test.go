//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// The background fields on the kernel emulator against matting's
// reference, bit for bit: FieldGrid and FieldThreshold on runs of random
// images and synthetic product shots, for models (one clipped to black)
// (one fitted to the image's border) and clean plates of every cell size
// (some of the image's own colours), at grid steps from 1 to beyond the
// image, with no samples, random ones, none, and the samples kept from
// SamplePlate.

// emuFields returns fields for a w×h analysis image: models, and plates
// of cells from 1 pixel to larger than the image with random colours.
func emuFields(w, h int, r *rand.Rand) []*matting.Field {
	fields := []*matting.Field{
		{Model: matting.BackgroundCoef{{0.5}, {0.5}, {0.5}}},
		{Model: matting.BackgroundCoef{{0.3, 0.2, -0.1, 0.05, 0.02, -0.04}, {0.6, -0.3, 0.1}, {0.1, 0, 0, 0.2, 0, 0.3}}},
		{Model: matting.BackgroundCoef{{-1}, {-2, 1}, {-3}}}, // clipped to black
	}
	for _, cell := range []int{1, 3, 22, max(w, h) + 1} {
		p := &matting.PlateField{Cell: cell, GW: (w + cell - 1) / cell, GH: (h + cell - 1) / cell}
		p.Col = make([]float32, 3*p.GW*p.GH)
		for i := range p.Col {
			p.Col[i] = float32(math.Ldexp(r.Float64(), -r.IntN(8)))
		}
		fields = append(fields, &matting.Field{Plate: p})
	}
	return fields
}

// TestEmulatedFields checks FieldGrid and FieldThreshold against
// ReferenceFieldGrid and ReferenceFieldThreshold.
func TestEmulatedFields(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	checks, inside := 0, 0 // inside: thresholds not clamped to 6 or 20
	for i, sz := range [][3]int{{1, 1, 1}, {2, 1, 1}, {7, 3, 1}, {64, 48, 1}, {300, 200, 2}, {500, 400, 1}} {
		W, H, f := sz[0], sz[1], sz[2]
		img := randomImage(W, H)
		if i >= 3 {
			img, _ = synth.Product(int64(i), W, H, []synth.BackgroundStyle{synth.Plain, synth.Gradient}[i%2])
		}
		sr, err := stages{e.dev}.Begin(ctx, img)
		require.NoError(t, err)
		run := sr.(*run)
		_, err = run.FieldThreshold(ctx, &matting.Field{}, nil)
		require.ErrorContains(t, err, "before Analyse")
		pl, err := run.Analyse(ctx, f, i%2 == 1)
		require.NoError(t, err)
		w, h := pl.W, pl.H
		r := rand.New(rand.NewPCG(uint64(i), 7))
		some := make([]bool, w*h)
		for p := range some {
			some[p] = r.IntN(3) > 0
		}
		fields := emuFields(w, h, r)
		// fields close to the image's own background, so that the
		// thresholds come from the percentile: the model fitted to the
		// frame's border, plates of the image's colour at cell centres
		var border []int32
		for p := 0; p < w*h; p++ {
			if x, y := p%w, p/w; x < 2 || y < 2 || x >= w-2 || y >= h-2 {
				border = append(border, int32(p))
			}
		}
		fit := matting.ReferenceFitBackground(w, h, pl.Lin, pl.Lab, &matting.FitInput{Samples: border})
		fields = append(fields, &matting.Field{Model: fit.Coef})
		for _, cell := range []int{2, 9} {
			p := &matting.PlateField{Cell: cell, GW: (w + cell - 1) / cell, GH: (h + cell - 1) / cell}
			for cy := 0; cy < p.GH; cy++ {
				for cx := 0; cx < p.GW; cx++ {
					o := 3 * (min(cy*cell+cell/2, h-1)*w + min(cx*cell+cell/2, w-1))
					p.Col = append(p.Col, pl.Lin[o:o+3]...)
				}
			}
			fields = append(fields, &matting.Field{Plate: p})
		}
		for k, field := range fields {
			name := fmt.Sprintf("%dx%d field %d", w, h, k)
			for _, step := range []int{1, 2, 4, 7, max(w, h) + 3} {
				grid, gw, gh, err := run.FieldGrid(ctx, field, step)
				require.NoError(t, err, name)
				want, ww, wh := matting.ReferenceFieldGrid(w, h, field, step)
				require.Equal(t, [2]int{ww, wh}, [2]int{gw, gh}, "%s step %d", name, step)
				require.Equal(t, bitsOf(want), bitsOf(grid), "%s step %d", name, step)
				checks++
			}
			for u, use := range [][]bool{nil, some, make([]bool, w*h)} {
				got, err := run.FieldThreshold(ctx, field, use)
				require.NoError(t, err, name)
				want := matting.ReferenceFieldThreshold(w, h, pl.Lab, field, use)
				require.Equal(t, math.Float32bits(want), math.Float32bits(got), "%s use %d: %v against %v", name, u, got, want)
				checks++
				if got > 6 && got < 20 {
					inside++
				}
			}
		}
		// the samples kept from SamplePlate, as general mode passes them
		grid := make([]float32, 3*((w+3)/4+1)*((h+3)/4+1))
		for k := range grid {
			grid[k] = []float32{60, 2, -3}[k%3]
		}
		dist, plain, shadowed, err := run.BGDistance(ctx, grid, (w+3)/4+1, (h+3)/4+1, 4)
		require.NoError(t, err)
		mask, err := run.Classify(ctx, dist, plain, 8)
		require.NoError(t, err)
		s, err := run.SamplePlate(ctx, &matting.PlateInput{Mask: mask, Dist: dist, Shadowed: shadowed, T: 8, Radius: 1, Cell: 3})
		require.NoError(t, err)
		require.True(t, kept(s.Use, run.hostUse))
		field := emuFields(w, h, r)[1]
		got, err := run.FieldThreshold(ctx, field, s.Use)
		require.NoError(t, err)
		require.Equal(t, matting.ReferenceFieldThreshold(w, h, pl.Lab, field, s.Use), got, "%dx%d kept samples", w, h)
		run.Close()
	}
	require.Positive(t, inside, "some thresholds come from the percentile")
	t.Logf("%d grids and thresholds bit for bit, %d thresholds inside (6, 20)", checks, inside)
}
