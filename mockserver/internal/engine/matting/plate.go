package matting

import (
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// bgField predicts the background's linear colour at an analysis pixel.
type bgField interface {
	at(x, y int) (float32, float32, float32)
	// describe returns the field's exported description for a device.
	describe() *Field
}

func (m *bgModel) describe() *Field { return &Field{Model: m.coef} }

func (p *plate) describe() *Field {
	return &Field{Plate: &PlateField{Cell: p.cell, GW: p.gw, GH: p.gh, Col: p.col}}
}

// plate is a non-parametric background estimate ("clean plate"): the
// average colour of confident background pixels on a coarse grid of cells,
// blurred, with cells that have no background nearby (behind the subject)
// filled from coarser levels (push-pull). It follows backdrops that a
// quadratic cannot (spotlights, uneven sweeps) while staying smooth.
type plate struct {
	w, h, cell int
	gw, gh     int
	col        []float32 // 3 per cell, linear light
}

// plateCell is the clean plate's cell size in analysis pixels for a w×h
// analysis image; the plate has ceil(w/cell)×ceil(h/cell) cells.
func plateCell(w, h int) int { return max(4, min(w, h)/48) }

// plateRadius is how far from the mask (square neighbourhood) the clean
// plate's samples must lie: the subject's surroundings (soft edges, its
// reflection and glow) are not backdrop.
func plateRadius(w, h int) int { return max(3, min(w, h)/100) }

// samplePlate chooses the clean plate's samples of one classification
// round and sums them per cell: the pixels away from the mask (outside
// its dilation by in.Radius), not shadowed and of distance below in.T/2.
// It is the per-pixel part of the plate's re-estimate, which a
// [PlateSampler] runs on its device instead.
func samplePlate(w, h int, lin []float32, in *PlateInput) *PlateSamples {
	near := dilate(in.Mask, w, h, in.Radius)
	use := make([]bool, w*h)
	half := in.T / 2
	counts := blockReduce(h, func(y0, y1 int) int {
		k := 0
		for p := y0 * w; p < y1*w; p++ {
			use[p] = !near[p] && !in.Shadowed[p] && in.Dist[p] < half
			if use[p] {
				k++
			}
		}
		return k
	})
	count := 0
	for _, k := range counts {
		count += k
	}
	return &PlateSamples{Use: use, Sums: plateSums(w, h, lin, use, in.Cell), Count: count}
}

// plateSums sums the linear colour of the pixels where use is true per
// cell of size cell: 4 values per cell in raster order (r, g, b and the
// pixel count). Each cell's pixels are added rows top to bottom, each row
// left to right, in float64: the order the plate has always been summed
// in, which a device reproduces with one thread per cell. Bands of cell
// rows are disjoint, so summing them in parallel keeps every cell's order
// and the sums do not depend on the number of goroutines.
func plateSums(w, h int, lin []float32, use []bool, cell int) []float64 {
	gw, gh := (w+cell-1)/cell, (h+cell-1)/cell
	sums := make([]float64, 4*gw*gh)
	parallel.Rows(gh, func(cy0, cy1 int) {
		for y := cy0 * cell; y < min(cy1*cell, h); y++ {
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
	})
	return sums
}

// plateFromSums builds the plate of a w×h analysis image from its cell
// sums (plateSums' layout, which it overwrites): the mean colour per cell
// area, blurred, with weak cells filled by push-pull. This small-grid
// finish stays on the host.
func plateFromSums(w, h, cell int, sums []float64) *plate {
	gw, gh := (w+cell-1)/cell, (h+cell-1)/cell
	area := float64(cell * cell)
	for i := range sums {
		sums[i] /= area
	}
	blur121(sums, gw, gh)
	col := pushPull(sums, gw, gh)
	out := make([]float32, 3*gw*gh)
	for i := range out {
		out[i] = float32(col[i])
	}
	return &plate{w: w, h: h, cell: cell, gw: gw, gh: gh, col: out}
}

// blur121 applies a separable [1 2 1]/4 blur to 4-channel cell sums.
func blur121(s []float64, w, h int) {
	tmp := make([]float64, len(s))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			l, r := max(x-1, 0), min(x+1, w-1)
			for c := 0; c < 4; c++ {
				tmp[4*(y*w+x)+c] = (s[4*(y*w+l)+c] + 2*s[4*(y*w+x)+c] + s[4*(y*w+r)+c]) / 4
			}
		}
	}
	for y := 0; y < h; y++ {
		u, d := max(y-1, 0), min(y+1, h-1)
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				s[4*(y*w+x)+c] = (tmp[4*(u*w+x)+c] + 2*tmp[4*(y*w+x)+c] + tmp[4*(d*w+x)+c]) / 4
			}
		}
	}
}

// pushPull turns weighted sums into colours, filling weakly supported
// cells from a half-resolution level, recursively.
func pushPull(s []float64, w, h int) []float64 {
	const enough = 0.25
	out := make([]float64, 3*w*h)
	weak := false
	for i := 0; i < w*h; i++ {
		if s[4*i+3] < enough {
			weak = true
			break
		}
	}
	var coarse []float64
	cw, ch := (w+1)/2, (h+1)/2
	if weak && (w > 1 || h > 1) {
		cs := make([]float64, 4*cw*ch)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				for c := 0; c < 4; c++ {
					cs[4*((y/2)*cw+x/2)+c] += s[4*(y*w+x)+c] / 4
				}
			}
		}
		coarse = pushPull(cs, cw, ch)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			wt := s[4*i+3]
			var own [3]float64
			if wt > 0 {
				own = [3]float64{s[4*i] / wt, s[4*i+1] / wt, s[4*i+2] / wt}
			}
			t := math.Min(wt/enough, 1)
			if coarse == nil {
				t = 1
				if wt == 0 {
					own = [3]float64{0.5, 0.5, 0.5}
				}
			}
			var fill [3]float64
			if t < 1 {
				fill = bilinear3(coarse, cw, ch, (float64(x)+0.5)/2-0.5, (float64(y)+0.5)/2-0.5)
			}
			for c := 0; c < 3; c++ {
				out[3*i+c] = t*own[c] + (1-t)*fill[c]
			}
		}
	}
	return out
}

func bilinear3(col []float64, w, h int, u, v float64) [3]float64 {
	u = math.Max(0, math.Min(u, float64(w-1)))
	v = math.Max(0, math.Min(v, float64(h-1)))
	x0, y0 := int(u), int(v)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := u-float64(x0), v-float64(y0)
	var out [3]float64
	for c := 0; c < 3; c++ {
		a := col[3*(y0*w+x0)+c]*(1-fx) + col[3*(y0*w+x1)+c]*fx
		b := col[3*(y1*w+x0)+c]*(1-fx) + col[3*(y1*w+x1)+c]*fx
		out[c] = a*(1-fy) + b*fy
	}
	return out
}

func (p *plate) at(x, y int) (float32, float32, float32) {
	u := (float64(x)+0.5)/float64(p.cell) - 0.5
	v := (float64(y)+0.5)/float64(p.cell) - 0.5
	c := bilinear3f(p.col, p.gw, p.gh, u, v)
	return c[0], c[1], c[2]
}

func bilinear3f(col []float32, w, h int, u, v float64) [3]float32 {
	u = math.Max(0, math.Min(u, float64(w-1)))
	v = math.Max(0, math.Min(v, float64(h-1)))
	x0, y0 := int(u), int(v)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := float32(u-float64(x0)), float32(v-float64(y0))
	var out [3]float32
	for c := 0; c < 3; c++ {
		a := col[3*(y0*w+x0)+c]*(1-fx) + col[3*(y0*w+x1)+c]*fx
		b := col[3*(y1*w+x0)+c]*(1-fx) + col[3*(y1*w+x1)+c]*fx
		out[c] = a*(1-fy) + b*fy
	}
	return out
}

// The clean plate's per-pixel part, exported as the reference that a
// device implementation of [PlateSampler] is tested against, step by step
// and bit for bit (package gpu's tests).

// ReferenceDilate returns mask grown by r pixels with a square
// structuring element, clipped at the frame (r ≤ 0: a copy): the
// dilation that keeps the plate's samples away from the mask.
func ReferenceDilate(mask []bool, w, h, r int) []bool { return dilate(mask, w, h, r) }

// ReferencePlateSums returns the clean plate's cell sums of the pixels
// where use is true: 4 float64 per cell of size cell (ceil(w/cell) ×
// ceil(h/cell) cells in raster order), the sums of the linear-light
// planes lin (3 values per pixel) and the pixel count, each cell's
// pixels added rows top to bottom and each row left to right.
func ReferencePlateSums(w, h int, lin []float32, use []bool, cell int) []float64 {
	return plateSums(w, h, lin, use, cell)
}

// ReferenceSamplePlate is one round's choice and sums of the clean
// plate's samples on the CPU, from the analysis size and linear-light
// planes: the result a [PlateSampler] must reproduce.
func ReferenceSamplePlate(w, h int, lin []float32, in *PlateInput) *PlateSamples {
	return samplePlate(w, h, lin, in)
}
