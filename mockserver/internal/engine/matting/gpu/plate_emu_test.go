//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// The clean plate's samples on the kernel emulator against matting's
// reference, step by step and bit for bit: the dilation of the mask, the
// choice of the samples and their sums per cell, on random inputs of
// every mask kind, size, radius and cell size, and whole SamplePlate
// calls of a run.

// plateCase is one SamplePlate input with the analysis' linear plane.
type plateCase struct {
	w, h int
	lin  []float32
	in   *matting.PlateInput
}

// genPlateCase returns a case whose mask is of the kind, whose distances
// straddle t/2 (exact ties and NaNs included) and whose linear plane
// holds values of every magnitude in [0, 1.2).
func genPlateCase(kind string, w, h int, seed uint64, radius, cell int) plateCase {
	r := rand.New(rand.NewPCG(seed^0x51ed27, uint64(w)<<32|uint64(h)))
	n := w * h
	t := float32(6 + 14*r.Float64())
	c := plateCase{w: w, h: h, lin: make([]float32, 3*n), in: &matting.PlateInput{
		Mask: genMask(kind, w, h, seed), Dist: make([]float32, n), Shadowed: make([]bool, n),
		T: t, Radius: radius, Cell: cell,
	}}
	for p := 0; p < n; p++ {
		switch r.IntN(10) {
		case 0:
			c.in.Dist[p] = t / 2 // a tie: not a sample
		case 1:
			c.in.Dist[p] = math.Nextafter32(t/2, 0)
		case 2:
			c.in.Dist[p] = float32(math.NaN())
		default:
			c.in.Dist[p] = t * r.Float32()
		}
		c.in.Shadowed[p] = r.IntN(6) == 0
	}
	for i := range c.lin {
		c.lin[i] = float32(math.Ldexp(r.Float64(), -r.IntN(20))) * 1.2
	}
	return c
}

// platePlanes is one SamplePlate's result and its intermediate planes.
type platePlanes struct {
	near, use []bool
	sums      []float64
}

// cpuPlate is the reference: ReferenceDilate, the test of
// matting.PlateSamples.Use on it, ReferencePlateSums; each checked
// against ReferenceSamplePlate.
func cpuPlate(t *testing.T, c plateCase) platePlanes {
	in := c.in
	near := matting.ReferenceDilate(in.Mask, c.w, c.h, in.Radius)
	use := make([]bool, len(near))
	for p := range use {
		use[p] = !near[p] && !in.Shadowed[p] && in.Dist[p] < in.T/2
	}
	sums := matting.ReferencePlateSums(c.w, c.h, c.lin, use, in.Cell)
	ref := matting.ReferenceSamplePlate(c.w, c.h, c.lin, in)
	require.Equal(t, use, ref.Use)
	require.Equal(t, f64bits(sums), f64bits(ref.Sums))
	return platePlanes{near: near, use: use, sums: sums}
}

// devPlate runs plateBufs.sample on the emulator from uploaded inputs and
// downloads every plane.
func devPlate(t *testing.T, e *Engine, c plateCase) platePlanes {
	n := c.w * c.h
	cell := c.in.Cell
	cells := ((c.w + cell - 1) / cell) * ((c.h + cell - 1) / cell)
	out := platePlanes{near: make([]bool, n), use: make([]bool, n), sums: make([]float64, 4*cells)}
	err := e.dev.do(context.Background(), func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		var ptrs [4]devicePtr
		for i, b := range [][]byte{bytesOf(c.in.Mask), bytesOf(c.in.Dist), bytesOf(c.in.Shadowed), bytesOf(c.lin)} {
			if ptrs[i], err = s.upload(b); err != nil {
				return err
			}
		}
		p, err := newPlateBufs(s, n, cells, 0)
		if err != nil {
			return err
		}
		if err := p.sample(wk, c.w, c.h, ptrs[0], ptrs[1], ptrs[2], ptrs[3], c.in.Radius, cell, c.in.T/2); err != nil {
			return err
		}
		if err := wk.download(bytesOf(out.near), p.near); err != nil {
			return err
		}
		if err := wk.download(bytesOf(out.use), p.use); err != nil {
			return err
		}
		return wk.download(bytesOf(out.sums), p.sums)
	})
	require.NoError(t, err)
	return out
}

func f64bits(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, f := range v {
		out[i] = math.Float64bits(f)
	}
	return out
}

// comparePlate compares the device's planes with the CPU's, naming the
// first step that differs.
func comparePlate(t *testing.T, name string, dev, cpu platePlanes) {
	t.Helper()
	require.Equal(t, cpu.near, dev.near, "%s: dilation", name)
	require.Equal(t, cpu.use, dev.use, "%s: samples", name)
	require.Equal(t, f64bits(cpu.sums), f64bits(dev.sums), "%s: cell sums", name)
}

// TestEmulatedPlateSteps runs the dilation, the choice of samples and the
// cell sums on random inputs of every mask kind and size, with radii from
// none (and negative) to beyond the image and cells from 1 pixel to
// larger than the image, comparing each step with the CPU's.
func TestEmulatedPlateSteps(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases, grown, some := 0, 0, 0
	for _, sz := range testSizes {
		for ki, kind := range maskKinds {
			for seed := uint64(1); seed <= 2; seed++ {
				w, h := sz[0], sz[1]
				k := ki*2 + int(seed)
				radius := []int{-2, 0, 1, 2, 3, 5, 11, max(w, h) + 3}[k%8]
				cell := []int{1, 3, 4, 5, 7, max(w, h) + 1}[k%6]
				c := genPlateCase(kind, w, h, seed, radius, cell)
				name := fmt.Sprintf("%s %dx%d seed %d radius %d cell %d", kind, w, h, seed, radius, cell)
				cpu := cpuPlate(t, c)
				comparePlate(t, name, devPlate(t, e, c), cpu)
				cases++
				if !equalMasks(cpu.near, c.in.Mask) {
					grown++
				}
				for _, u := range cpu.use {
					if u {
						some++
						break
					}
				}
			}
		}
	}
	t.Logf("%d inputs identical at every step (the dilation grew %d masks; %d with samples)", cases, grown, some)
	assert.Positive(t, grown)
	assert.Positive(t, some)
}

// TestEmulatedSamplePlate runs SamplePlate itself on a run of a random
// image (its linear plane from Analyse), with inputs uploaded and with a
// round's planes kept on the device, at the pipeline's radius and cell
// and at absurd ones (clamped exactly), against ReferenceSamplePlate.
func TestEmulatedSamplePlate(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	for _, sz := range [][2]int{{1, 1}, {2, 67}, {130, 3}, {211, 157}} {
		W, H := sz[0], sz[1]
		img := image.NewNRGBA(image.Rect(0, 0, W, H))
		r := rand.New(rand.NewPCG(uint64(W), uint64(H)))
		for i := range img.Pix {
			img.Pix[i] = uint8(r.IntN(256))
		}
		sr, err := stages{e.dev}.Begin(ctx, img)
		require.NoError(t, err)
		run := sr.(*run)
		pl, err := run.Analyse(ctx, 1, false)
		require.NoError(t, err)
		w, h := pl.W, pl.H
		for i, rc := range [][2]int{{max(3, min(w, h)/100), max(4, min(w, h)/48)}, {1 << 40, 1 << 40}, {-(1 << 40), 2}} {
			c := genPlateCase("blobs", w, h, uint64(i+1), rc[0], rc[1])
			want := matting.ReferenceSamplePlate(w, h, pl.Lin, c.in)
			got, err := run.SamplePlate(ctx, c.in)
			require.NoError(t, err)
			name := fmt.Sprintf("%dx%d radius %d cell %d", w, h, rc[0], rc[1])
			require.Equal(t, want.Use, got.Use, name)
			require.Equal(t, f64bits(want.Sums), f64bits(got.Sums), name)
			require.Equal(t, want.Count, got.Count, name)
		}
		// a round: BGDistance and Classify keep their planes, which
		// SamplePlate reads
		gw, gh := (w+3)/4+1, (h+3)/4+1
		grid := make([]float32, 3*gw*gh)
		for i := range grid {
			grid[i] = []float32{60, 2, -3}[i%3]
		}
		dist, plain, shadowed, err := run.BGDistance(ctx, grid, gw, gh, 4)
		require.NoError(t, err)
		mask, err := run.Classify(ctx, dist, plain, 8)
		require.NoError(t, err)
		in := &matting.PlateInput{Mask: mask, Dist: dist, Shadowed: shadowed, T: 8, Radius: 2, Cell: 4}
		require.True(t, kept(mask, run.hostMask) && kept(dist, run.hostDist) && kept(shadowed, run.hostShadowed))
		got, err := run.SamplePlate(ctx, in)
		require.NoError(t, err)
		want := matting.ReferenceSamplePlate(w, h, pl.Lin, in)
		require.Equal(t, want.Use, got.Use)
		require.Equal(t, f64bits(want.Sums), f64bits(got.Sums))
		require.Equal(t, want.Count, got.Count)
		run.Close()
	}
}
