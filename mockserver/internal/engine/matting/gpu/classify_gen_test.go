//go:build cuda && linux

package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Random masks and fields for the mask clean-up's property tests: each is
// a pure function of its seed, so a failure names a reproducible case.

// testSizes are the sizes every generator is run at: single pixels, rows,
// columns, odd and even sizes, one with more than one numbering chunk.
var testSizes = [][2]int{{1, 1}, {1, 37}, {41, 1}, {2, 2}, {3, 90}, {90, 3}, {17, 13}, {64, 48}, {97, 71}, {160, 120}}

// maskKinds are the mask generators by name.
var maskKinds = []string{"empty", "full", "noise", "sparse", "blobs", "lines", "spiral", "border", "checker", "slits", "channels"}

// genMask returns a w×h mask of the kind.
func genMask(kind string, w, h int, seed uint64) []bool {
	r := rand.New(rand.NewPCG(seed, uint64(w)<<32|uint64(h)))
	m := make([]bool, w*h)
	set := func(x, y int, v bool) {
		if x >= 0 && y >= 0 && x < w && y < h {
			m[y*w+x] = v
		}
	}
	disc := func(cx, cy, rx, ry float64, v bool) {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
				if dx*dx+dy*dy <= 1 {
					m[y*w+x] = v
				}
			}
		}
	}
	switch kind {
	case "empty":
	case "full":
		for i := range m {
			m[i] = true
		}
	case "noise":
		for i := range m {
			m[i] = r.IntN(2) == 0
		}
	case "sparse":
		for i := range m {
			m[i] = r.IntN(9) == 0
		}
	case "checker":
		for i := range m {
			m[i] = (i%w+i/w)%2 == 0
		}
	case "blobs", "border":
		for k := 0; k < 2+r.IntN(6); k++ {
			cx, cy := r.Float64()*float64(w), r.Float64()*float64(h)
			if kind == "border" && k%2 == 0 {
				cx = []float64{0, float64(w - 1)}[r.IntN(2)]
			}
			rx, ry := 1+r.Float64()*float64(w)/3, 1+r.Float64()*float64(h)/3
			disc(cx, cy, rx, ry, true)
			if r.IntN(2) == 0 { // a hole
				disc(cx, cy, rx/3, ry/3, false)
			}
		}
	case "lines":
		for k := 0; k < 3+r.IntN(6); k++ {
			x, y := r.IntN(w), r.IntN(h)
			dx, dy := r.IntN(3)-1, r.IntN(3)-1
			for s := 0; s < w+h; s++ {
				set(x+s*dx, y+s*dy, true)
			}
		}
	case "spiral":
		// a square spiral with walls one pixel wide, gaps of g
		g := 1 + r.IntN(2)
		x0, y0, x1, y1 := 0, 0, w-1, h-1
		for x0 <= x1 && y0 <= y1 {
			for x := x0; x <= x1; x++ {
				set(x, y0, true)
			}
			for y := y0; y <= y1; y++ {
				set(x1, y, true)
			}
			for x := x0; x <= x1; x++ {
				set(x, y1, true)
			}
			for y := y0 + g + 1; y <= y1; y++ {
				set(x0, y, true)
			}
			x0, y0, x1, y1 = x0+g+1, y0+g+1, x1-g-1, y1-g-1
			if x0 <= x1 {
				set(x0-1, y0, true)
			}
		}
	case "slits":
		// rectangles cut by narrow vertical and horizontal gaps, and tall
		// slivers beside them: fillSlits' cases
		for k := 0; k < 1+r.IntN(3); k++ {
			x0, y0 := r.IntN(w), r.IntN(h)
			x1, y1 := x0+1+r.IntN(w/2+1), y0+1+r.IntN(h/2+1)
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					set(x, y, true)
				}
			}
			gx, gw := x0+r.IntN(x1-x0+1), 1+r.IntN(6)
			for y := y0 + r.IntN(2); y < y1; y++ {
				for x := gx; x < gx+gw; x++ {
					set(x, y, false)
				}
			}
			gy, gh := y0+r.IntN(y1-y0+1), 1+r.IntN(3)
			for y := gy; y < gy+gh; y++ {
				for x := x0; x < x1; x++ {
					set(x, y, false)
				}
			}
			sx := x1 + 1 + r.IntN(4)
			for y := y0; y < y1; y++ {
				set(sx, y, true)
			}
		}
	case "channels":
		// blocks split by a vertical channel wider than fillSlits' maxGap
		// (up to twice it), of constant, widening or ragged width, over
		// runs of various heights, with tall slivers beside some: the
		// wide candidates and their acceptance
		maxGap := max(2, min(w, h)/25)
		for k := 0; k < 1+r.IntN(4); k++ {
			gw := maxGap + 1 + r.IntN(maxGap)
			bw := 3*gw + r.IntN(2*gw+1)
			x0, y0 := r.IntN(w), r.IntN(h)
			y1 := y0 + 1 + r.IntN(8*gw)
			shape := r.IntN(3)
			for y := y0; y <= y1; y++ {
				cw := gw
				switch shape {
				case 1:
					cw = min(2*maxGap, maxGap+1+(y-y0)/2)
				case 2:
					cw = maxGap + 1 + r.IntN(maxGap)
				}
				for x := x0; x < x0+2*bw+cw; x++ {
					set(x, y, y == y1 || x < x0+bw || x >= x0+bw+cw)
				}
			}
			if r.IntN(2) == 0 {
				sx := x0 + 2*bw + gw + 1 + r.IntN(maxGap)
				for y := y0; y < y0+3*(1+r.IntN(maxGap))+r.IntN(8); y++ {
					set(sx, y, true)
				}
			}
		}
	default:
		panic(fmt.Sprintf("unknown mask kind %q", kind))
	}
	return m
}

// field is one classification round's input: the analysis L*a*b* plane,
// the distances and the threshold.
type field struct {
	w, h             int
	lab, dist, plain []float32
	t                float32
}

// genField returns a field whose mask (dist > t) is of the kind, with
// strong and weak parts, and whose L*a*b* plane varies smoothly (so the
// flood may enter) except at the edges of some shapes (subjects); plain
// straddles the flood's limit 2t.
func genField(kind string, w, h int, seed uint64) field {
	r := rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(w)<<32|uint64(h)))
	f := field{w: w, h: h, t: float32(6 + 14*r.Float64())}
	m := genMask(kind, w, h, seed)
	n := w * h
	f.lab, f.dist, f.plain = make([]float32, 3*n), make([]float32, n), make([]float32, n)
	// part of the shapes carry an edge in colour: a step in L* on one side
	edgeX := r.IntN(w + 1)
	slope := float64(f.t) / 8 * r.Float64() * 2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			l := 50 + slope*float64(x+y)/4
			if m[p] && x >= edgeX {
				l += float64(f.t) * (0.5 + r.Float64())
			}
			f.lab[3*p] = float32(l + r.NormFloat64()*0.3)
			f.lab[3*p+1] = float32(math.Sin(float64(x)/17)*3 + r.NormFloat64()*0.2)
			f.lab[3*p+2] = float32(math.Cos(float64(y)/13)*3 + r.NormFloat64()*0.2)
			var d float64
			switch {
			case !m[p]:
				d = r.Float64() * float64(f.t)
			case r.IntN(4) == 0:
				d = float64(f.t) * (2 + 2*r.Float64()) // strong
			default:
				d = float64(f.t) * (1.0001 + 1.2*r.Float64())
			}
			f.dist[p] = float32(d)
			f.plain[p] = float32(d * (0.6 + 0.9*r.Float64()))
		}
	}
	if kind == "noise" && n > 4 { // exact ties at the thresholds, NaNs
		f.dist[0], f.plain[1], f.dist[2] = f.t, 2*f.t, 2*f.t
		for i := 3; i < n; i += 7 {
			f.plain[i] = float32(math.NaN())
		}
	}
	return f
}
