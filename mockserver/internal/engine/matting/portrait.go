package matting

import (
	"context"
	"image"
	"math"
	"sort"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// portraitTemplate is the head-and-shoulders prior derived from one face
// box (analysis coordinates): face centre (cx, cy) and face size (fw, fh).
type portraitTemplate struct {
	cx, cy, fw, fh float64
}

func newTemplate(r image.Rectangle) portraitTemplate {
	return portraitTemplate{
		cx: float64(r.Min.X+r.Max.X) / 2, cy: float64(r.Min.Y+r.Max.Y) / 2,
		fw: float64(r.Dx()), fh: float64(r.Dy()),
	}
}

// core reports pixels that are the subject with near certainty: the inner
// face, the neck below it and the chest below the chin.
func (t portraitTemplate) core(x, y float64) bool {
	dx, dy := (x-t.cx)/(0.34*t.fw), (y-t.cy)/(0.38*t.fh)
	if dx*dx+dy*dy <= 1 {
		return true
	}
	ax := math.Abs(x - t.cx)
	if ax <= 0.1*t.fw && y >= t.cy+0.4*t.fh && y <= t.cy+1.3*t.fh {
		return true
	}
	return ax <= 0.7*t.fw && y >= t.cy+1.3*t.fh
}

// far reports pixels that are the surroundings with near certainty: above
// the hair, beside the head, and wide of the shoulders.
func (t portraitTemplate) far(x, y float64) bool {
	ax := math.Abs(x - t.cx)
	switch {
	case y < t.cy-1.15*t.fh:
		return true
	case y < t.cy+0.7*t.fh && ax > 1.25*t.fw:
		return true
	case ax > 2.8*t.fw:
		return true
	}
	return false
}

// hairBoost is the extra prior (nats) for the zone where hair is expected:
// hair often shares colours with the surroundings, and most heads have it.
const hairBoost = 1.5

// hairZone reports the band above and beside the face where hair usually is.
func (t portraitTemplate) hairZone(x, y float64) bool {
	u, v := (x-t.cx)/t.fw, (y-t.cy)/t.fh
	hx, hy := u/0.62, (v+0.1)/0.78
	return hx*hx+hy*hy <= 1 && v < 0.3
}

// sdf is the signed distance (negative inside, in face widths) to a
// generous head-and-shoulders silhouette; it shapes the soft prior.
func (t portraitTemplate) sdf(x, y float64) float64 {
	u, v := (x-t.cx)/t.fw, (y-t.cy)/t.fh
	// head with hair
	hx, hy := u/0.72, (v+0.12)/0.85
	dHead := (math.Hypot(hx, hy) - 1) * 0.75
	// neck
	dNeck := math.Max(math.Abs(u)-0.3, math.Abs(v-0.9)-0.4)
	// torso: rounded slab from the shoulders down
	qx, qy := math.Abs(u)-1.45+0.5, math.Abs(v-3.4)-2.6+0.5
	dTorso := math.Hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - 0.5
	return math.Min(dHead, math.Min(dNeck, dTorso))
}

// Colour histograms quantise each sRGB channel to histLevels levels.
const (
	histBits   = 5
	histLevels = 1 << histBits
	histBins   = histLevels * histLevels * histLevels
)

// colourModel is a smoothed 3D colour histogram.
type colourModel struct {
	bins [histBins]float64
	n    float64
}

func colourBin(r, g, b float32) int {
	q := func(v float32) int { return min(max(int(v*histLevels), 0), histLevels-1) }
	return q(r)<<(2*histBits) | q(g)<<histBits | q(b)
}

func (m *colourModel) add(r, g, b float32, w float64) {
	m.bins[colourBin(r, g, b)] += w
	m.n += w
}

// smooth spreads counts to neighbouring bins so that colours close to
// observed ones are not treated as unseen.
func (m *colourModel) smooth() {
	var out [histBins]float64
	const mask = histLevels - 1
	for i, v := range m.bins {
		if v == 0 {
			continue
		}
		r, g, b := i>>(2*histBits), (i>>histBits)&mask, i&mask
		for dr := -1; dr <= 1; dr++ {
			for dg := -1; dg <= 1; dg++ {
				for db := -1; db <= 1; db++ {
					rr, gg, bb := r+dr, g+dg, b+db
					if rr < 0 || gg < 0 || bb < 0 || rr > mask || gg > mask || bb > mask {
						continue
					}
					w := 1.0
					if dr != 0 || dg != 0 || db != 0 {
						w = 0.25
					}
					out[rr<<(2*histBits)|gg<<histBits|bb] += v * w
				}
			}
		}
	}
	total := 0.0
	for _, v := range out {
		total += v
	}
	m.bins = out
	m.n = total
}

func (m *colourModel) prob(bin int) float64 {
	return (m.bins[bin] + 0.01) / (m.n + 0.01*histBins)
}

// portraitMask segments a person seeded by face boxes: a head-and-shoulders
// template gives certain subject and surroundings regions plus a soft prior;
// colour histograms of both are learnt from them and refined over a few
// rounds of graph cuts with contrast-sensitive smoothness (a simplified
// GrabCut). Without faces it falls back to the border model with the bottom
// edge allowed to belong to the subject.
func portraitMask(ctx context.Context, a *analysis, faces []image.Rectangle) ([]bool, error) {
	if len(faces) == 0 {
		return generalMaskOpts(a, true), nil
	}
	w, h := a.w, a.h
	n := w * h
	templates := make([]portraitTemplate, len(faces))
	for i, f := range faces {
		templates[i] = newTemplate(f)
	}
	core := make([]bool, n)
	far := make([]bool, n)
	prior := make([]float32, n)
	border := max(2, min(w, h)/100)
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				p := y*w + x
				fx, fy := float64(x)+0.5, float64(y)+0.5
				isFar := true
				best := math.Inf(1)
				for _, t := range templates {
					if t.core(fx, fy) {
						core[p] = true
					}
					if !t.far(fx, fy) {
						isFar = false
					}
					best = math.Min(best, t.sdf(fx, fy))
				}
				// The frame's top and sides are surroundings unless a
				// template says the subject is there (wide shoulders).
				onEdge := y < border || (x < border || x >= w-border) && best > -0.2
				far[p] = !core[p] && (isFar || onEdge)
				// Soft prior in nats: mildly positive inside the silhouette,
				// increasingly negative outside it.
				prior[p] = float32(math.Max(-3, math.Min(0.8, -best*4)))
				for _, t := range templates {
					if t.hairZone(fx, fy) {
						prior[p] += hairBoost
					}
				}
			}
		}
	})

	// Contrast-sensitive smoothness: β from the mean squared neighbour
	// difference (a deterministic blocked reduction).
	parts := blockReduce(h, func(y0, y1 int) [2]float64 {
		var s, c float64
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				p := 3 * (y*w + x)
				if x+1 < w {
					s += float64(colourDist2(a.srgb, p, p+3))
					c++
				}
				if y+1 < h {
					s += float64(colourDist2(a.srgb, p, p+3*w))
					c++
				}
			}
		}
		return [2]float64{s, c}
	})
	var sum, cnt float64
	for _, pr := range parts {
		sum += pr[0]
		cnt += pr[1]
	}
	beta := 1 / (2 * math.Max(sum/math.Max(cnt, 1), 1e-6))

	const (
		scale  = 64  // nats → integer capacities
		lambda = 2.5 // smoothness weight, nats
		iters  = 4   // GrabCut rounds
		llrCap = 6.0 // clamp of the colour log-likelihood ratio
		seedW  = 0.0 // weight of template-inside samples in the first round
		// share of the global histogram in the background likelihood; the
		// rest is the local model
		globalShare = 0.25
		localSigma  = 0.75 // spatial reach of the local model, face widths
	)
	// Smoothness capacities and colour bins do not change between rounds.
	edges := make([]int32, 4*n)
	bins := make([]int32, n)
	lbins := make([]int16, n)
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				p := y*w + x
				o := 3 * p
				bins[p] = int32(colourBin(a.srgb[o], a.srgb[o+1], a.srgb[o+2]))
				lbins[p] = int16(localBin(a.srgb[o], a.srgb[o+1], a.srgb[o+2]))
				if x+1 < w {
					c := int32(math.Round(lambda * scale * math.Exp(-beta*float64(colourDist2(a.srgb, o, o+3)))))
					edges[4*p+0] = c
					edges[4*(p+1)+1] = c
				}
				if y+1 < h {
					c := int32(math.Round(lambda * scale * math.Exp(-beta*float64(colourDist2(a.srgb, o, o+3*w)))))
					edges[4*p+2] = c
					edges[4*(p+w)+3] = c
				}
			}
		}
	})
	// The local background model's grid follows the face size: cells of
	// half a face width (bounded so the grid stays small), blurred over
	// about three quarters of a face width.
	fws := make([]float64, len(templates))
	for i, t := range templates {
		fws[i] = t.fw
	}
	sort.Float64s(fws)
	fw := fws[len(fws)/2]
	cellSize := max(int(fw/2), (max(w, h)+31)/32, 4)
	bgSample := make([]bool, n)

	seg := make([]bool, n)
	for i := range seg {
		seg[i] = prior[i] > 0
	}
	for iter := 0; iter < iters; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var fgm, bgm colourModel
		clear(bgSample)
		if iter == 0 {
			for p := 0; p < n; p++ {
				r, g, b := a.srgb[3*p], a.srgb[3*p+1], a.srgb[3*p+2]
				switch {
				case core[p]:
					fgm.add(r, g, b, 1)
				case far[p] || prior[p] < -1:
					bgm.add(r, g, b, 1)
					bgSample[p] = true
				case prior[p] > 0:
					fgm.add(r, g, b, seedW)
				}
			}
		} else {
			inner := erode(seg, w, h, 2)
			outer := erode(invert(seg), w, h, 2)
			for p := 0; p < n; p++ {
				r, g, b := a.srgb[3*p], a.srgb[3*p+1], a.srgb[3*p+2]
				if inner[p] || core[p] {
					fgm.add(r, g, b, 1)
				} else if outer[p] || far[p] {
					bgm.add(r, g, b, 1)
					bgSample[p] = true
				}
			}
		}
		fgm.smooth()
		bgm.smooth()
		local := newLocalModel(a, bgSample, cellSize, localSigma*fw)
		fgp := make([]float64, histBins)
		bgp := make([]float64, histBins)
		for i := range fgp {
			fgp[i] = fgm.prob(i)
			bgp[i] = globalShare * bgm.prob(i)
		}
		g := newGridGraph(w, h)
		copy(g.rcap, edges)
		parallel.Rows(h, func(y0, y1 int) {
			for p := y0 * w; p < y1*w; p++ {
				switch {
				case core[p]:
					g.tr[p] = gcInf
				case far[p]:
					g.tr[p] = -gcInf
				default:
					x, y := p%w, p/w
					pb := bgp[bins[p]] + (1-globalShare)*local.prob(x, y, int(lbins[p]))
					llr := math.Max(-llrCap, math.Min(llrCap, math.Log(fgp[bins[p]]/pb)))
					u := llr + float64(prior[p])
					g.tr[p] = int32(math.Round(u * scale))
				}
			}
		})
		g.maxflow()
		for p := range seg {
			seg[p] = g.tree[p] == treeS && g.parent[p] != gcNone
		}
	}
	// Keep what is connected to a face or chest core; fill enclosed holes.
	labels, comps := components(seg, w, h, true, true, nil)
	keep := make([]bool, len(comps)+1)
	for p := range seg {
		if core[p] && labels[p] > 0 {
			keep[labels[p]] = true
		}
	}
	area := 0
	for p, l := range labels {
		seg[p] = l > 0 && keep[l]
		if seg[p] {
			area++
		}
	}
	fillHoles(seg, w, h, area/4)
	return seg, nil
}

func colourDist2(s []float32, p, q int) float32 {
	// in 8-bit units so β is scale-free of the [0,1] encoding
	return 65025 * (sq(s[p]-s[q]) + sq(s[p+1]-s[q+1]) + sq(s[p+2]-s[q+2]))
}

func invert(m []bool) []bool {
	out := make([]bool, len(m))
	for i, v := range m {
		out[i] = !v
	}
	return out
}
