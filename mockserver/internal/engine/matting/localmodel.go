package matting

import (
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// The local background model quantises each sRGB channel to 16 levels: a
// coarser histogram than the global models', since each grid cell sees far
// fewer samples.
const (
	localBits   = 4
	localLevels = 1 << localBits
	localBins   = localLevels * localLevels * localLevels
)

func localBin(r, g, b float32) int {
	q := func(v float32) int { return min(max(int(v*localLevels), 0), localLevels-1) }
	return q(r)<<(2*localBits) | q(g)<<localBits | q(b)
}

// localModel is a background colour model that varies over the frame: a
// histogram of the background samples per grid cell, smoothed in colour and
// blurred over the grid with a Gaussian, so that each place sees mostly the
// background colours near it. A dark table at the frame's edge then says
// little about a dark collar under a chin, which only the light backdrop
// around the head surrounds.
type localModel struct {
	gx, gy, cs int
	dens       []float32 // gx·gy·localBins densities (each cell sums to 1)
}

// newLocalModel builds the model from the pixels selected by sample, on a
// grid of cs-pixel cells blurred with a Gaussian of sigma pixels.
func newLocalModel(a *analysis, sample []bool, cs int, sigma float64) *localModel {
	w, h := a.w, a.h
	m := &localModel{gx: (w + cs - 1) / cs, gy: (h + cs - 1) / cs, cs: cs}
	nc := m.gx * m.gy
	counts := make([]float32, nc*localBins)
	// Each band of cell rows owns its slice of counts, so the sums do not
	// depend on the split.
	parallel.Rows(m.gy, func(c0, c1 int) {
		for y := c0 * cs; y < min(c1*cs, h); y++ {
			row := (y / cs) * m.gx
			for x := 0; x < w; x++ {
				p := y*w + x
				if !sample[p] {
					continue
				}
				o := 3 * p
				counts[(row+x/cs)*localBins+localBin(a.srgb[o], a.srgb[o+1], a.srgb[o+2])]++
			}
		}
	})
	// Colour smoothing: a separable [¼ 1 ¼] kernel along each channel axis.
	parallel.Rows(nc, func(c0, c1 int) {
		tmp := make([]float32, localBins)
		for c := c0; c < c1; c++ {
			h := counts[c*localBins : (c+1)*localBins]
			for _, stride := range []int{1, localLevels, localLevels * localLevels} {
				copy(tmp, h)
				for i := range h {
					k := (i / stride) % localLevels
					if k > 0 {
						h[i] += 0.25 * tmp[i-stride]
					}
					if k < localLevels-1 {
						h[i] += 0.25 * tmp[i+stride]
					}
				}
			}
		}
	})
	// Spatial blur over the grid, separable, truncated at 3σ.
	sc := sigma / float64(cs)
	rad := int(math.Ceil(3 * sc))
	kern := make([]float32, 2*rad+1)
	for i := range kern {
		d := float64(i - rad)
		kern[i] = float32(math.Exp(-d * d / (2 * sc * sc)))
	}
	blur := func(src []float32, horizontal bool) []float32 {
		dst := make([]float32, len(src))
		parallel.Rows(nc, func(c0, c1 int) {
			for c := c0; c < c1; c++ {
				cx, cy := c%m.gx, c/m.gx
				out := dst[c*localBins : (c+1)*localBins]
				for k := -rad; k <= rad; k++ {
					x, y := cx, cy
					if horizontal {
						x += k
					} else {
						y += k
					}
					if x < 0 || y < 0 || x >= m.gx || y >= m.gy {
						continue
					}
					wk := kern[k+rad]
					in := src[(y*m.gx+x)*localBins : (y*m.gx+x+1)*localBins]
					for i, v := range in {
						out[i] += wk * v
					}
				}
			}
		})
		return dst
	}
	m.dens = blur(blur(counts, true), false)
	parallel.Rows(nc, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			h := m.dens[c*localBins : (c+1)*localBins]
			var s float64
			for _, v := range h {
				s += float64(v)
			}
			if s <= 0 {
				continue
			}
			inv := float32(1 / s)
			for i := range h {
				h[i] *= inv
			}
		}
	})
	return m
}

// prob returns the model's density of colour bin at pixel (x, y),
// interpolated bilinearly between cell centres, per bin of the global
// (finer) histograms so that the two can be mixed.
func (m *localModel) prob(x, y, bin int) float64 {
	u := (float64(x)+0.5)/float64(m.cs) - 0.5
	v := (float64(y)+0.5)/float64(m.cs) - 0.5
	x0, y0 := int(math.Floor(u)), int(math.Floor(v))
	fx, fy := u-float64(x0), v-float64(y0)
	var s float64
	for j := 0; j < 2; j++ {
		cy := min(max(y0+j, 0), m.gy-1)
		wy := 1 - fy
		if j == 1 {
			wy = fy
		}
		for i := 0; i < 2; i++ {
			cx := min(max(x0+i, 0), m.gx-1)
			wx := 1 - fx
			if i == 1 {
				wx = fx
			}
			s += wx * wy * float64(m.dens[(cy*m.gx+cx)*localBins+bin])
		}
	}
	const sub = 1 << (3 * (histBits - localBits)) // global bins per local bin
	return s / sub
}
