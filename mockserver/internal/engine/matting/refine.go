package matting

import (
	"image"
	"math"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// cellStats are the local foreground and background colour estimates
// (sRGB, [0,1]) of one analysis cell near the boundary.
type cellStats struct {
	f, b       [3]float32
	varF, varB float32
}

// localStats estimates, for every cell in need, the weighted mean and
// variance of confident foreground and background colours nearby. Nearer
// pixels weigh more, so a background that darkens towards the subject (a
// contact shadow) is estimated from its darkest, closest part.
//
// global reports whether some cell had no confident pixel of a kind within
// 4·radius and took the whole image's mean instead.
func localStats(a *analysis, need []int32, confFg, confBg []bool, radius int) (out []cellStats, global bool) {
	out = make([]cellStats, len(need))
	// The whole image's means are the fallback of a cell with no confident
	// pixels within 4·radius; most images have none, so they are summed
	// (in raster order, as always) only when a cell needs them.
	var glob struct {
		once   sync.Once
		fg, bg [3]float32
		used   bool
	}
	means := func() ([3]float32, [3]float32) {
		glob.once.Do(func() {
			glob.used = true
			conf := make([]uint8, a.w*a.h) // confFg and confBg are disjoint
			for i := range conf {
				if confFg[i] {
					conf[i] = 1
				} else if confBg[i] {
					conf[i] = 2
				}
			}
			glob.fg, glob.bg = ConfidentMeans(a.raw, conf)
		})
		return glob.fg, glob.bg
	}
	parallel.Rows(len(need), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := int(need[i])
			x, y := p%a.w, p/a.w
			st := &out[i]
			okF, okB := false, false
			for r := radius; r <= 4*radius && !(okF && okB); r *= 2 {
				fs, fw, bs, bw := windowStats(a, x, y, r, confFg, confBg)
				if !okF && fw > 0.5 {
					st.f, st.varF, okF = fs.mean, fs.variance, true
				}
				if !okB && bw > 0.5 {
					st.b, st.varB, okB = bs.mean, bs.variance, true
				}
			}
			if !okF {
				st.f, _ = means()
				st.varF = 0.05
			}
			if !okB {
				_, st.b = means()
				st.varB = 0.05
			}
		}
	})
	// Rows has returned: every once.Do has too.
	return out, glob.used
}

type meanVar struct {
	mean     [3]float32
	variance float32
}

// windowStats returns the distance-weighted mean and total variance of the
// confident foreground and background pixels in the (2r+1)² window.
func windowStats(a *analysis, x, y, r int, confFg, confBg []bool) (meanVar, float64, meanVar, float64) {
	var sf, sb [3]float64
	var qf, qb float64
	var wf, wb float64
	y0, y1 := max(y-r, 0), min(y+r, a.h-1)
	x0, x1 := max(x-r, 0), min(x+r, a.w-1)
	for yy := y0; yy <= y1; yy++ {
		for xx := x0; xx <= x1; xx++ {
			p := yy*a.w + xx
			if !confFg[p] && !confBg[p] {
				continue
			}
			dx, dy := float64(xx-x), float64(yy-y)
			w := 1 / (1 + (dx*dx+dy*dy)/4)
			o := 3 * p
			r, g, b := float64(a.raw[o]), float64(a.raw[o+1]), float64(a.raw[o+2])
			if confFg[p] {
				sf[0] += w * r
				sf[1] += w * g
				sf[2] += w * b
				qf += w * (r*r + g*g + b*b)
				wf += w
			} else {
				sb[0] += w * r
				sb[1] += w * g
				sb[2] += w * b
				qb += w * (r*r + g*g + b*b)
				wb += w
			}
		}
	}
	var f, bg meanVar
	if wf > 0 {
		m := [3]float64{sf[0] / wf, sf[1] / wf, sf[2] / wf}
		f.mean = [3]float32{float32(m[0]), float32(m[1]), float32(m[2])}
		f.variance = float32(math.Max(0, qf/wf-(m[0]*m[0]+m[1]*m[1]+m[2]*m[2])))
	}
	if wb > 0 {
		m := [3]float64{sb[0] / wb, sb[1] / wb, sb[2] / wb}
		bg.mean = [3]float32{float32(m[0]), float32(m[1]), float32(m[2])}
		bg.variance = float32(math.Max(0, qb/wb-(m[0]*m[0]+m[1]*m[1]+m[2]*m[2])))
	}
	return f, wf, bg, wb
}

// refined is the result of upsampling and refining a coarse mask.
type refined struct {
	alpha     *image.Alpha
	unrefined *image.Alpha // the coarse mask upsampled, before refinement
	fg        *image.NRGBA // spill-corrected colours, when requested
}

// refine turns the coarse mask into a full-resolution soft alpha. Pixels
// far from the coarse boundary keep the coarse label; in the unknown band
// around it each pixel I is unmixed against local foreground and
// background estimates F and B (see unmix), trusted in proportion to how
// well F and B are separated relative to their local variance and to how
// close I lies to the mixing line, and otherwise falling back to the
// upsampled coarse mask.
func refine(img *image.NRGBA, a *analysis, mask []bool, spill, wantUnrefined bool) *refined {
	return refinePixels(img, a, mask, planRefine(a, mask), spill, wantUnrefined)
}

// refinePlan is what the full-resolution refinement needs from the
// analysis resolution: the unknown band, the statistics of the cells on
// and around it, and where to find them.
type refinePlan struct {
	band      []bool      // per analysis cell: in the unknown band
	index     []int32     // per analysis cell: its entry in stats, or -1
	stats     []cellStats // of the band and one cell around it
	bandCells []int32     // the band's cells, in raster order
	// The intermediate planes, kept for ReferenceRefinePlan: the band
	// dilated by one cell, the confident foreground and background, and
	// whether a cell took the whole image's means.
	around, confFg, confBg []bool
	global                 bool
}

// refineRadii returns the refinement's radii at analysis factor f: the
// band holds the cells within band (square) of a label change, covering
// at least bandMin full-resolution pixels, and the local statistics start
// from windows of radius stats.
func refineRadii(f int) (band, stats int) {
	rb := (max(bandMin, 2*f) + f - 1) / f
	return rb - 1, rb + 3
}

// planRefine computes the refinement's analysis-resolution inputs.
func planRefine(a *analysis, mask []bool) *refinePlan {
	rBand, rStats := refineRadii(a.factor)
	return planRefineRadii(a, mask, rBand, rStats)
}

// planRefineRadii is planRefine with the radii of refineRadii given.
func planRefineRadii(a *analysis, mask []bool, rBand, rStats int) *refinePlan {
	band := boundaryBand(mask, a.w, a.h, rBand)
	confFg := make([]bool, len(mask))
	confBg := make([]bool, len(mask))
	parallel.Rows(len(mask), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			confFg[i] = mask[i] && !band[i]
			confBg[i] = !mask[i] && !band[i]
		}
	})
	// Statistics are needed on the band and one cell around it, for the
	// bilinear interpolation at full resolution.
	around := dilate(band, a.w, a.h, 1)
	index, need, bandCells := listCells(around, band)
	stats, global := localStats(a, need, confFg, confBg, rStats)
	return &refinePlan{band: band, index: index, stats: stats, bandCells: bandCells,
		around: around, confFg: confFg, confBg: confBg, global: global}
}

// listCells numbers the cells of around in raster order: index gives each
// cell's number or -1, need lists around's cells and bandCells band's
// (a subset of around's), both in raster order. Bands of cells are counted,
// then filled at their offsets, in parallel.
func listCells(around, band []bool) (index, need, bandCells []int32) {
	n := len(around)
	bands := parallel.Bands(n, 1<<16)
	type count struct{ around, band int }
	counts := make([]count, bands+1) // counts[b+1]: band b's; then offsets
	parallel.For(n, bands, func(b, lo, hi int) {
		var c count
		for i := lo; i < hi; i++ {
			if around[i] {
				c.around++
			}
			if band[i] {
				c.band++
			}
		}
		counts[b+1] = c
	})
	for b := 1; b <= bands; b++ {
		counts[b].around += counts[b-1].around
		counts[b].band += counts[b-1].band
	}
	index = make([]int32, n)
	need = make([]int32, counts[bands].around)
	bandCells = make([]int32, counts[bands].band)
	parallel.For(n, bands, func(b, lo, hi int) {
		na, nb := counts[b].around, counts[b].band
		for i := lo; i < hi; i++ {
			index[i] = -1
			if around[i] {
				index[i] = int32(na)
				need[na] = int32(i)
				na++
			}
			if band[i] {
				bandCells[nb] = int32(i)
				nb++
			}
		}
	})
	return index, need, bandCells
}

// refinePixels is the full-resolution part of refine.
func refinePixels(img *image.NRGBA, a *analysis, mask []bool, p *refinePlan, spill, wantUnrefined bool) *refined {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	f := a.factor
	index, stats, bandCells := p.index, p.stats, p.bandCells
	out := &refined{alpha: image.NewAlpha(image.Rect(0, 0, W, H))}
	// Coarse labels, nearest-neighbour upsampled.
	parallel.Rows(H, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := out.alpha.Pix[y*out.alpha.Stride : y*out.alpha.Stride+W]
			cy := y / f
			for x := range row {
				if mask[cy*a.w+x/f] {
					row[x] = 255
				} else {
					row[x] = 0
				}
			}
		}
	})
	if wantUnrefined {
		out.unrefined = image.NewAlpha(out.alpha.Rect)
		copy(out.unrefined.Pix, out.alpha.Pix)
	}
	if spill {
		out.fg = image.NewNRGBA(image.Rect(0, 0, W, H))
		parallel.Rows(H, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				copy(out.fg.Pix[y*out.fg.Stride:y*out.fg.Stride+4*W], img.Pix[y*img.Stride:y*img.Stride+4*W])
				row := out.fg.Pix[y*out.fg.Stride : y*out.fg.Stride+4*W]
				for x := 0; x < W; x++ {
					row[4*x+3] = 255
				}
			}
		})
	}

	inv := 1 / float32(f)
	parallel.Rows(len(bandCells), func(lo, hi int) {
		for _, cell := range bandCells[lo:hi] {
			cx, cy := int(cell)%a.w, int(cell)/a.w
			for y := cy * f; y < min(cy*f+f, H); y++ {
				v := (float32(y)+0.5)*inv - 0.5
				for x := cx * f; x < min(cx*f+f, W); x++ {
					u := (float32(x)+0.5)*inv - 0.5
					st, m := interpStats(a, stats, index, mask, u, v)
					o := y*img.Stride + 4*x
					I := [3]float32{float32(img.Pix[o]) / 255, float32(img.Pix[o+1]) / 255, float32(img.Pix[o+2]) / 255}
					alpha := m
					ap, k, res, den := unmix(I, st.f, st.b)
					if den > 1e-6 {
						// Trust the unmixing when F and B are well separated
						// and I actually lies near the segment between them;
						// a pixel of another colour (a highlight at the
						// silhouette, texture) keeps the coarse label.
						conf := den / (den + st.varF + st.varB + 0.002)
						conf *= float32(math.Exp(float64(-res / (2 * (mixNoise + 0.25*(st.varF+st.varB))))))
						alpha = conf*ap + (1-conf)*m
					}
					st.b = [3]float32{st.b[0] * k, st.b[1] * k, st.b[2] * k}
					if alpha < 0.03 {
						alpha = 0
					} else if alpha > 0.97 {
						alpha = 1
					}
					out.alpha.Pix[y*out.alpha.Stride+x] = uint8(alpha*255 + 0.5)
					if out.fg != nil {
						decontaminate(out.fg.Pix[y*out.fg.Stride+4*x:], I, st, alpha)
					}
				}
			}
		}
	})
	return out
}

// shadeReg weighs (in squared [0,1] colour units) the preference for the
// local background estimate as is over a darker version of it.
const shadeReg = 0.03

// minShade is the darkest the background behind an edge pixel may be
// relative to its local estimate (contact shadows darken towards the
// subject, the estimate comes from a few pixels away).
const minShade = 0.6

// unmix solves I ≈ αF + (1-α)kB for α in [0,1] and k in [minShade, 1]:
// least squares in (α, β=(1-α)k) with a ridge pulling α+β towards 1 (k=1),
// then k is clamped and α re-projected. It returns α, k, the squared
// residual and |F-kB|² (the separation).
func unmix(I, F, B [3]float32) (alpha, k, res, den float32) {
	var ff, fb, bb, fi, bi float32
	for c := 0; c < 3; c++ {
		ff += F[c] * F[c]
		fb += F[c] * B[c]
		bb += B[c] * B[c]
		fi += F[c] * I[c]
		bi += B[c] * I[c]
	}
	k = 1
	const l = shadeReg
	a11, a12, a22 := ff+l, fb+l, bb+l
	if det := a11*a22 - a12*a12; det > 1e-9 {
		al := ((fi+l)*a22 - a12*(bi+l)) / det
		be := (a11*(bi+l) - a12*(fi+l)) / det
		if al < 0.999 {
			k = min(max(be/(1-al), minShade), 1)
		}
	}
	var num float32
	for c := 0; c < 3; c++ {
		d := F[c] - k*B[c]
		num += (I[c] - k*B[c]) * d
		den += d * d
	}
	if den <= 1e-6 {
		return 0, k, 0, den
	}
	alpha = min(max(num/den, 0), 1)
	for c := 0; c < 3; c++ {
		e := I[c] - k*B[c] - alpha*(F[c]-k*B[c])
		res += e * e
	}
	return alpha, k, res, den
}

// mixNoise is the squared colour deviation (sRGB, [0,1]) tolerated between
// a pixel and the F–B mixing line before the unmixing is distrusted.
const mixNoise = (6.0 / 255) * (6.0 / 255)

// decontaminate writes the foreground colour solving I = αF + (1-α)B for F,
// blended towards the local foreground estimate where α is small and the
// solution is ill-conditioned.
func decontaminate(px []uint8, I [3]float32, st cellStats, alpha float32) {
	t := min(max((alpha-0.1)/0.5, 0), 1)
	t = t * t * (3 - 2*t)
	for c := 0; c < 3; c++ {
		est := st.f[c]
		if alpha > 0.05 {
			est = (I[c] - (1-alpha)*st.b[c]) / alpha
		}
		v := t*est + (1-t)*st.f[c]
		if alpha >= 1 {
			v = I[c]
		}
		px[c] = uint8(min(max(v, 0), 1)*255 + 0.5)
	}
}

// interpStats bilinearly interpolates the cell statistics and the coarse
// mask at analysis coordinates (u, v).
func interpStats(a *analysis, stats []cellStats, index []int32, mask []bool, u, v float32) (cellStats, float32) {
	x0 := int(math.Floor(float64(u)))
	y0 := int(math.Floor(float64(v)))
	fx, fy := u-float32(x0), v-float32(y0)
	var out cellStats
	var m, wsum float32
	for j := 0; j < 2; j++ {
		for i := 0; i < 2; i++ {
			x := min(max(x0+i, 0), a.w-1)
			y := min(max(y0+j, 0), a.h-1)
			w := (1 - fx) * (1 - fy)
			switch {
			case i == 1 && j == 0:
				w = fx * (1 - fy)
			case i == 0 && j == 1:
				w = (1 - fx) * fy
			case i == 1 && j == 1:
				w = fx * fy
			}
			p := y*a.w + x
			if mask[p] {
				m += w
			}
			k := index[p]
			if k < 0 || w == 0 {
				continue
			}
			s := &stats[k]
			for c := 0; c < 3; c++ {
				out.f[c] += w * s.f[c]
				out.b[c] += w * s.b[c]
			}
			out.varF += w * s.varF
			out.varB += w * s.varB
			wsum += w
		}
	}
	if wsum > 0 && wsum < 1 {
		for c := 0; c < 3; c++ {
			out.f[c] /= wsum
			out.b[c] /= wsum
		}
		out.varF /= wsum
		out.varB /= wsum
	}
	return out, m
}

// bandMin is the smallest half-width, in full-resolution pixels, of the
// unknown band refined around the coarse boundary.
const bandMin = 2

// The refinement's plan, exported as the reference that a device
// implementation of [RefinePlanner] is tested against, step by step and
// bit for bit (package gpu's tests).

// RefineRadii returns the radii of the refinement's plan at analysis
// factor f (at least 1): the unknown band is the label changes dilated by
// band (square), and each cell's local statistics start from windows of
// radius stats, doubled up to 4·stats (see [RefinePlanInput]).
func RefineRadii(f int) (band, stats int) { return refineRadii(max(f, 1)) }

// ReferenceBoundaryEdges marks the cells of mask (w×h) with a
// 4-neighbour of the other label: the unknown band before its dilation.
func ReferenceBoundaryEdges(mask []bool, w, h int) []bool { return boundaryBand(mask, w, h, 0) }

// RefinePlan is the refinement's plan on the CPU ([ReferenceRefinePlan]).
type RefinePlan struct {
	// Band marks the unknown band, Around the band dilated by one cell
	// (the cells with statistics), ConfFg and ConfBg the confident
	// foreground (mask and not band) and background (neither).
	Band, Around, ConfFg, ConfBg []bool
	// Index gives each cell's entry in Stats, or -1: Around's cells,
	// numbered in raster order.
	Index []int32
	// Stats holds StatsStride values per entry, as RefineInput.Stats.
	Stats []float32
	// Global reports that some cell had no confident pixel of a kind
	// within 4·stats radius and took the whole image's mean of that kind.
	Global bool
}

// ReferenceRefinePlan computes the refinement's plan on the CPU from the
// analysis size and raw sRGB plane (Planes.Raw), the coarse mask and the
// radii (as [RefinePlanInput]'s; statsRadius below 1 counts as 1): with
// RefineRadii's radii, what deviceRefine uploads when the run is no
// [RefinePlanner].
func ReferenceRefinePlan(w, h int, raw []float32, mask []bool, bandRadius, statsRadius int) *RefinePlan {
	a := &analysis{w: w, h: h, raw: raw}
	p := planRefineRadii(a, mask, bandRadius, max(statsRadius, 1))
	return &RefinePlan{Band: p.band, Around: p.around, ConfFg: p.confFg, ConfBg: p.confBg,
		Index: p.index, Stats: packStats(p.stats), Global: p.global}
}

// ConfidentMeans returns the whole image's mean colours of the confident
// foreground (conf 1) and background (conf 2) pixels of a raw sRGB plane
// (3 values per pixel), each summed in float64 in raster order: the
// statistics (with variance 0.05) of a cell of the refinement's plan
// without a confident pixel of that kind within 4·StatsRadius, bit for
// bit localStats'. A device that plans the refinement
// ([RefinePlanner]) leaves this sequential sum to the host.
func ConfidentMeans(raw []float32, conf []uint8) (fg, bg [3]float32) {
	var sumF, sumB [3]float64
	var nF, nB float64
	for i, k := range conf[:min(len(conf), len(raw)/3)] {
		switch k {
		case 1:
			for c := 0; c < 3; c++ {
				sumF[c] += float64(raw[3*i+c])
			}
			nF++
		case 2:
			for c := 0; c < 3; c++ {
				sumB[c] += float64(raw[3*i+c])
			}
			nB++
		}
	}
	for c := 0; c < 3; c++ {
		fg[c] = float32(sumF[c] / max(nF, 1))
		bg[c] = float32(sumB[c] / max(nB, 1))
	}
	return fg, bg
}

// packStats lays the cell statistics out as RefineInput.Stats.
func packStats(stats []cellStats) []float32 {
	out := make([]float32, StatsStride*len(stats))
	parallel.Rows(len(stats), func(lo, hi int) {
		for i, s := range stats[lo:hi] {
			o := out[StatsStride*(lo+i) : StatsStride*(lo+i)+StatsStride]
			copy(o[0:3], s.f[:])
			copy(o[3:6], s.b[:])
			o[6], o[7] = s.varF, s.varB
		}
	})
	return out
}
