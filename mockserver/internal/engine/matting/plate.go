package matting

import "math"

// bgField predicts the background's linear colour at an analysis pixel.
type bgField interface {
	at(x, y int) (float32, float32, float32)
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

// newPlate builds the plate from the analysis pixels where use is true.
func newPlate(a *analysis, use []bool) *plate {
	cell := max(4, min(a.w, a.h)/48)
	gw, gh := (a.w+cell-1)/cell, (a.h+cell-1)/cell
	sums := make([]float64, 4*gw*gh) // r, g, b, weight
	area := float64(cell * cell)
	for y := 0; y < a.h; y++ {
		for x := 0; x < a.w; x++ {
			p := y*a.w + x
			if !use[p] {
				continue
			}
			c := 4 * ((y/cell)*gw + x/cell)
			sums[c] += float64(a.lin[3*p])
			sums[c+1] += float64(a.lin[3*p+1])
			sums[c+2] += float64(a.lin[3*p+2])
			sums[c+3]++
		}
	}
	for i := range sums {
		sums[i] /= area
	}
	blur121(sums, gw, gh)
	col := pushPull(sums, gw, gh)
	out := make([]float32, 3*gw*gh)
	for i := range out {
		out[i] = float32(col[i])
	}
	return &plate{w: a.w, h: a.h, cell: cell, gw: gw, gh: gh, col: out}
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
