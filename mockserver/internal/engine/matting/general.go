package matting

import (
	"errors"
	"math"
	"slices"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// shadowMinScale is the smallest factor by which a cast shadow may scale the
// background's (L*+16, a*, b*) vector: under a shadow that multiplies linear
// light by k, that vector scales by k^(1/3) (above the CIE linear toe), so
// 0.585 accepts shadows down to k ≈ 0.2.
const shadowMinScale = 0.585

// bgDistance returns, per analysis pixel, the L*a*b* distance to the
// background model allowing for shadows: the minimum over s in
// [shadowMinScale, 1] of |P - s·Pb| with P = (L*+16, a*, b*). Because s = 1
// is included it never exceeds the plain distance; it is small for pixels
// that are the background at lower luminance with the same chromaticity
// (cast shadows), while dark subject colours need s far below the limit.
// plain is the distance without the shadow term; shadowed reports pixels
// explained only by the shadow term.
func bgDistance(a *analysis, m bgField) (dist, plain []float32, shadowed []bool) {
	grid, gw, gh := fieldGridOn(a, m)
	if a.dev != nil && a.devErr == nil {
		d, pl, sh, err := a.dev.BGDistance(a.ctx, grid, gw, gh, fieldStep)
		if err == nil {
			return d, pl, sh
		}
		// The caller returns the device's error after the mask stage;
		// the CPU finishes this call so the mask logic sees valid data.
		a.devErr = err
	}
	return bgDistanceCPU(a, grid, gw, gh)
}

// bgDistanceCPU is bgDistance on the CPU, from the field's grid.
func bgDistanceCPU(a *analysis, grid []float32, gw, gh int) (dist, plain []float32, shadowed []bool) {
	dist = make([]float32, a.w*a.h)
	plain = make([]float32, a.w*a.h)
	shadowed = make([]bool, a.w*a.h)
	pred := fieldInterp(a, grid, gw, gh)
	parallel.Rows(a.h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < a.w; x++ {
				p := y*a.w + x
				o := 3 * p
				pl, pa, pb := a.lab[o]+16, a.lab[o+1], a.lab[o+2]
				ql, qa, qb := pred[o]+16, pred[o+1], pred[o+2]
				s := (pl*ql + pa*qa + pb*qb) / max(ql*ql+qa*qa+qb*qb, 1e-6)
				if s > 1 {
					s = 1
				} else if s < shadowMinScale {
					s = shadowMinScale
				}
				d := float32(math.Sqrt(float64(sq(pl-s*ql) + sq(pa-s*qa) + sq(pb-s*qb))))
				dist[p] = d
				plain[p] = float32(math.Sqrt(float64(sq(pl-ql) + sq(pa-qa) + sq(pb-qb))))
				shadowed[p] = s < 0.97
			}
		}
	})
	return dist, plain, shadowed
}

// fieldStep is the grid spacing at which a background field is converted to
// L*a*b*; the fields are smooth, so bilinear interpolation in between is
// exact to well below the noise.
const fieldStep = 4

// fieldGrid evaluates the field in L*a*b* on a grid of spacing fieldStep
// (gw×gh nodes, 3 values each; the last row and column clamp to the
// image's edge).
func fieldGrid(a *analysis, m bgField) (grid []float32, gw, gh int) {
	return fieldGridStep(a, m, fieldStep)
}

// fieldGridStep is fieldGrid at spacing step.
func fieldGridStep(a *analysis, m bgField, step int) (grid []float32, gw, gh int) {
	gw, gh = (a.w+step-1)/step+1, (a.h+step-1)/step+1
	grid = make([]float32, 3*gw*gh)
	parallel.Rows(gh, func(y0, y1 int) {
		for gy := y0; gy < y1; gy++ {
			for gx := 0; gx < gw; gx++ {
				r, g, b := m.at(min(gx*step, a.w-1), min(gy*step, a.h-1))
				o := 3 * (gy*gw + gx)
				grid[o], grid[o+1], grid[o+2] = linToLab(r, g, b)
			}
		}
	})
	return grid, gw, gh
}

// fieldInterp returns the field's predicted L*a*b* colour for every pixel,
// interpolated bilinearly from its grid; the fields are smooth, so this is
// exact to well below the noise.
func fieldInterp(a *analysis, grid []float32, gw, gh int) []float32 {
	out := make([]float32, 3*a.w*a.h)
	const inv = 1.0 / fieldStep
	parallel.Rows(a.h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			gy := y / fieldStep
			fy := float32(y%fieldStep) * inv
			for x := 0; x < a.w; x++ {
				gx := x / fieldStep
				fx := float32(x%fieldStep) * inv
				o00 := 3 * (gy*gw + gx)
				o10 := o00 + 3
				o01 := o00 + 3*gw
				o11 := o01 + 3
				o := 3 * (y*a.w + x)
				for c := 0; c < 3; c++ {
					top := grid[o00+c] + (grid[o10+c]-grid[o00+c])*fx
					bot := grid[o01+c] + (grid[o11+c]-grid[o01+c])*fx
					out[o+c] = top + (bot-top)*fy
				}
			}
		}
	})
	return out
}

// borderSamples returns pixels in a band along the frame, on a regular
// subsampling grid (deterministic) of at most about limit pixels.
// With openBottom the bottom edge is left out (a subject may be cut by it).
func borderSamples(a *analysis, limit int, openBottom bool) []sample {
	band := max(2, min(a.w, a.h)/50)
	total := 2*band*a.w + 2*band*a.h
	step := 1
	for total/(step*step) > limit {
		step++
	}
	var out []sample
	for y := 0; y < a.h; y += step {
		for x := 0; x < a.w; x += step {
			if x < band || y < band || x >= a.w-band || (y >= a.h-band && !openBottom) {
				out = append(out, sample{x: x, y: y, idx: y*a.w + x})
			}
		}
	}
	return out
}

// threshold derives the foreground distance threshold from the residuals of
// background samples that fit the model: it tracks the noise level.
func threshold(res []float32) float32 {
	var in []float32
	for _, r := range res {
		if r < 20 {
			in = append(in, r)
		}
	}
	p95 := quantile(in, 0.95)
	t := 2*p95 + 2
	return min(max(t, 6), 20)
}

// generalMask computes the coarse foreground mask of general mode.
func generalMask(a *analysis) []bool { return generalMaskOpts(a, false) }

// generalMaskOpts is generalMask; openBottom excludes the bottom edge from
// the initial background samples.
func generalMaskOpts(a *analysis, openBottom bool) []bool {
	samples := borderSamples(a, 20000, openBottom)
	model, res := fitOn(a, samples, nil, openBottom)
	if !openBottom {
		// Refit robustly on the whole frame, starting from the border
		// model: the subject is an outlier there too, and the interior shows
		// the backdrop's shape (a spotlight) that the border cannot. (Not
		// for the portrait fallback, where the subject may fill the frame.)
		model, _ = fitOn(a, gridSamples(a, 20000), model, false)
	}
	var t float32
	if openBottom {
		t = threshold(res)
	} else {
		t = thresholdOn(a, model, nil)
	}
	var field bgField = model
	var mask []bool
	keeper := distanceKeeper(a)
	// After a device error the removal fails with it once the mask stage
	// is done: the rounds stop (a device that keeps the planes or the
	// distances left nothing on the host to go on with).
	for round := 0; round < 3 && a.devErr == nil; round++ {
		var dist, plain []float32
		var shadowed []bool
		if keeper != nil {
			// the distances stay on the device; Classify and SamplePlate
			// read them there
			grid, gw, gh := fieldGridOn(a, field)
			if a.devErr == nil {
				a.devErr = keeper.BGDistanceKept(a.ctx, grid, gw, gh, fieldStep)
			}
		} else {
			dist, plain, shadowed = bgDistance(a, field)
		}
		if a.devErr != nil {
			break
		}
		mask = classifyOn(a, dist, plain, t)
		if round == 2 || a.devErr != nil {
			break
		}
		// Re-estimate the background from confident background over the
		// whole frame (not only the border), leaving out shadows and the
		// subject's surroundings, as a clean plate that follows the backdrop
		// where the subject stands.
		in := &PlateInput{Mask: mask, Dist: dist, Shadowed: shadowed, T: t,
			Radius: plateRadius(a.w, a.h), Cell: plateCell(a.w, a.h)}
		s := samplePlateOn(a, in)
		if s.Count < 100 || a.devErr != nil {
			break
		}
		pl := plateFromSums(a.w, a.h, in.Cell, s.Sums)
		field = pl
		t = thresholdOn(a, pl, s.Use)
	}
	if mask == nil {
		mask = make([]bool, a.w*a.h) // a device error came first
	}
	return mask
}

// gridSamples returns pixels on a regular grid over the whole frame, at
// most about limit of them.
func gridSamples(a *analysis, limit int) []sample {
	step := 1
	for (a.w/step)*(a.h/step) > limit {
		step++
	}
	var out []sample
	for y := step / 2; y < a.h; y += step {
		for x := step / 2; x < a.w; x += step {
			out = append(out, sample{x: x, y: y, idx: y*a.w + x})
		}
	}
	return out
}

// fieldResiduals returns the L*a*b* residuals of the used pixels (all when
// use is nil) against the field, on a regular subsampling grid, in raster
// order. Bands of grid rows are computed in parallel and joined in order.
func fieldResiduals(a *analysis, f bgField, use []bool) []float32 {
	step := subsamplingStep(a.w, a.h)
	rows := (a.h - step/2 + step - 1) / step // grid rows y = step/2 + k·step < a.h
	bands := parallel.Bands(rows, 16)
	parts := make([][]float32, bands)
	parallel.For(rows, bands, func(band, lo, hi int) {
		var res []float32
		for y := step/2 + lo*step; y < a.h && y < step/2+hi*step; y += step {
			for x := step / 2; x < a.w; x += step {
				p := y*a.w + x
				if use != nil && !use[p] {
					continue
				}
				r, g, b := f.at(x, y)
				L, A, B := linToLab(r, g, b)
				o := 3 * p
				res = append(res, float32(math.Sqrt(float64(sq(a.lab[o]-L)+sq(a.lab[o+1]-A)+sq(a.lab[o+2]-B)))))
			}
		}
		parts[band] = res
	})
	return slices.Concat(parts...)
}

// fieldOf describes a field for a device.
func fieldOf(f bgField) *Field { return f.describe() }

// bgFieldOf is the field f describes on a w×h analysis image, or an
// error naming what does not fit it.
func bgFieldOf(w, h int, f *Field) (bgField, error) {
	if f == nil {
		return nil, errors.New("matting: no field")
	}
	p := f.Plate
	if p == nil {
		return &bgModel{coef: f.Model, w: w, h: h}, nil
	}
	if p.Cell < 1 || p.GW != (w+p.Cell-1)/p.Cell || p.GH != (h+p.Cell-1)/p.Cell || len(p.Col) != 3*p.GW*p.GH {
		return nil, errors.New("matting: the plate's grid does not match the analysis size")
	}
	return &plate{w: w, h: h, cell: p.Cell, gw: p.GW, gh: p.GH, col: p.Col}, nil
}

// fieldGridOn is fieldGrid on the analysis' device when it is a
// FieldEvaluator, else (or after a device error) on the CPU.
func fieldGridOn(a *analysis, m bgField) ([]float32, int, int) {
	if d, ok := a.dev.(FieldEvaluator); ok && a.devErr == nil {
		grid, gw, gh, err := d.FieldGrid(a.ctx, fieldOf(m), fieldStep)
		wantW, wantH := (a.w+fieldStep-1)/fieldStep+1, (a.h+fieldStep-1)/fieldStep+1
		if err == nil && (gw != wantW || gh != wantH || len(grid) != 3*gw*gh) {
			err = errors.New("matting: the device's field grid does not match the analysis size")
		}
		if err == nil {
			return grid, gw, gh
		}
		// As in bgDistance: the pipeline fails with the device's error
		// once the mask stage is done.
		a.devErr = err
	}
	return fieldGrid(a, m)
}

// thresholdOn is threshold(fieldResiduals(a, m, use)) on the analysis'
// device when it is a FieldEvaluator, else (or after a device error) on
// the CPU.
func thresholdOn(a *analysis, m bgField, use []bool) float32 {
	if d, ok := a.dev.(FieldEvaluator); ok && a.devErr == nil {
		t, err := d.FieldThreshold(a.ctx, fieldOf(m), use)
		if err == nil {
			return t
		}
		a.devErr = err
	}
	if a.hostless {
		return 0 // the removal fails
	}
	return threshold(fieldResiduals(a, m, use))
}

// ReferenceFieldGrid is a field's L*a*b* grid on the CPU for a w×h
// analysis image: the field at every step-th pixel (clamped to the last
// row and column), (w+step-1)/step+1 by (h+step-1)/step+1 nodes of 3
// values in raster order; BGDistance interpolates it. The field must fit
// the image ([Field]); step is at least 1.
func ReferenceFieldGrid(w, h int, f *Field, step int) (grid []float32, gw, gh int) {
	m, err := bgFieldOf(w, h, f)
	if err != nil {
		panic(err) // a reference for tests: its inputs are valid
	}
	return fieldGridStep(&analysis{w: w, h: h}, m, step)
}

// ReferenceFieldThreshold is one classification round's threshold on the
// CPU: from the L*a*b* residuals against the field of the pixels on a
// regular subsampling grid of at most about 40 000 (those marked in use
// when use is not nil), twice the 95th percentile of those below 20,
// plus 2, clamped to [6, 20].
func ReferenceFieldThreshold(w, h int, lab []float32, f *Field, use []bool) float32 {
	m, err := bgFieldOf(w, h, f)
	if err != nil {
		panic(err)
	}
	return threshold(fieldResiduals(&analysis{w: w, h: h, lab: lab}, m, use))
}

// FieldSubsampling returns the step of the subsampling grid of
// ReferenceFieldThreshold on a w×h image: its pixels are (step/2 + i·step,
// step/2 + j·step) inside the image.
func FieldSubsampling(w, h int) int { return subsamplingStep(w, h) }

// subsamplingStep is the smallest step whose grid on the w×h image has at
// most 40 000 pixels (about).
func subsamplingStep(w, h int) int {
	step := 1
	for (w/step)*(h/step) > 40000 {
		step++
	}
	return step
}

// distanceKeeper returns the analysis' device as a DistanceKeeper when it
// keeps the rounds' distances for its own Classify and SamplePlate, else
// nil.
func distanceKeeper(a *analysis) DistanceKeeper {
	k, ok := a.dev.(DistanceKeeper)
	_, c := a.dev.(Classifier)
	_, p := a.dev.(PlateSampler)
	if !ok || !c || !p || a.devErr != nil {
		return nil
	}
	return k
}

// classifyOn is classify on the analysis' device when it is a
// Classifier, else (or after a device error) on the CPU. With nil
// distances (kept on the device) a device error gives an empty mask: the
// removal fails with it.
func classifyOn(a *analysis, dist, plain []float32, t float32) []bool {
	if c, ok := a.dev.(Classifier); ok && a.devErr == nil {
		mask, err := c.Classify(a.ctx, dist, plain, t)
		if err == nil && len(mask) != a.w*a.h {
			err = errors.New("matting: the device's mask does not match the analysis size")
		}
		if err == nil {
			return mask
		}
		// As in bgDistance: the pipeline fails with the device's error
		// once the mask stage is done.
		a.devErr = err
	}
	if dist == nil {
		return make([]bool, a.w*a.h)
	}
	return classify(a, dist, plain, t)
}

// samplePlateOn chooses and sums the clean plate's samples on the
// analysis' device when it is a PlateSampler, else (or after a device
// error) on the CPU.
func samplePlateOn(a *analysis, in *PlateInput) *PlateSamples {
	if d, ok := a.dev.(PlateSampler); ok && a.devErr == nil {
		s, err := d.SamplePlate(a.ctx, in)
		if err == nil {
			if err = checkPlateSamples(s, a.w, a.h, in.Cell); err == nil {
				return s
			}
		}
		// As in bgDistance: the pipeline fails with the device's error
		// once the mask stage is done.
		a.devErr = err
	}
	if in.Dist == nil {
		return &PlateSamples{} // kept on the device, which failed
	}
	return samplePlate(a.w, a.h, a.lin, in)
}

// checkPlateSamples rejects a device's result whose planes do not have
// the analysis' sizes, which the plate and the residuals would index out
// of range.
func checkPlateSamples(s *PlateSamples, w, h, cell int) error {
	gw, gh := (w+cell-1)/cell, (h+cell-1)/cell
	if s == nil || len(s.Use) != w*h || len(s.Sums) != 4*gw*gh {
		return errors.New("matting: the device's plate samples do not match the analysis size")
	}
	return nil
}

// classify thresholds the background distance and cleans the result up:
// components must contain a clearly foreground pixel and be large relative
// to the biggest one; enclosed holes are filled.
func classify(a *analysis, dist, plain []float32, t float32) []bool {
	n := a.w * a.h
	mask := make([]bool, n)
	for i, d := range dist {
		mask[i] = d > t
	}
	keepComponents(mask, a.w, a.h, dist, 2*t)
	kept := append([]bool(nil), mask...)
	fillSlits(mask, a.w, a.h, max(2, min(a.w, a.h)/25))
	fillHoles(mask, a.w, a.h, countTrue(mask)/2)
	// Pixels filled as slits or holes are protected from the flood: they are
	// background-coloured on purpose (labels, highlights).
	filled := make([]bool, n)
	for i := range filled {
		filled[i] = mask[i] && !kept[i]
	}
	floodSmooth(a, mask, plain, t, filled)
	keepComponents(mask, a.w, a.h, dist, 2*t)
	fillHoles(mask, a.w, a.h, countTrue(mask)/2)
	return mask
}

func countTrue(m []bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// keepComponents removes 8-connected foreground components that never reach
// strong (speckle, faint shadow edges) or that are small next to the largest
// component.
func keepComponents(mask []bool, w, h int, score []float32, strong float32) {
	labels, comps := components(mask, w, h, true, true, score)
	largest := 0
	for _, c := range comps {
		if c.peak >= strong && c.area > largest {
			largest = c.area
		}
	}
	minArea := max(16, w*h/2000, largest/50)
	for i, l := range labels {
		if l == 0 {
			continue
		}
		c := comps[l-1]
		if c.area < minArea || c.peak < strong {
			mask[i] = false
		}
	}
}

// fillSlits closes narrow background runs between two parts of the same
// subject component, along rows and columns: a specular highlight running
// the full height of a glossy product, for instance, can match a light
// backdrop in colour and would otherwise split the subject. A run is filled
// when it is at most maxGap long and at most 30 % of the component's extent
// in that direction; row gaps up to twice as long and 45 % of the extent
// are filled only where they form a tall, narrow channel (at least three
// times as tall as wide, or 1.5 times with nearly constant width); such row
// gaps between a component and a tall sliver (at most 2·maxGap wide, three
// times as tall) count too, as the far edge of a cylinder is cut off by a
// highlight running next to it. Wider openings are kept as background.
func fillSlits(mask []bool, w, h, maxGap int) {
	labels, comps := components(mask, w, h, true, true, nil)
	if len(comps) == 0 {
		return
	}
	x0 := make([]int, len(comps))
	x1 := make([]int, len(comps))
	y0 := make([]int, len(comps))
	y1 := make([]int, len(comps))
	for i := range comps {
		x0[i], y0[i], x1[i], y1[i] = w, h, -1, -1
	}
	for p, l := range labels {
		if l == 0 {
			continue
		}
		i := l - 1
		x, y := p%w, p/w
		x0[i], x1[i] = min(x0[i], x), max(x1[i], x)
		y0[i], y1[i] = min(y0[i], y), max(y1[i], y)
	}
	wideMax := 2 * maxGap
	sliver := make([]bool, len(comps))
	for i := range comps {
		cw, ch := x1[i]-x0[i]+1, y1[i]-y0[i]+1
		sliver[i] = cw <= wideMax && ch >= 3*cw
	}
	fill := make([]bool, len(mask))
	// Wider row gaps (a broad highlight stripe) are only candidates: they
	// are filled where they form a tall, narrow channel, which a gap between
	// two touching round parts (a short, widening V) does not.
	wide := make([]int32, len(mask))
	scan := func(n, m int, at func(i, j int) int, extent func(c int) int, relaxed bool) {
		for i := 0; i < n; i++ {
			last, lastLabel := -1, int32(0)
			for j := 0; j < m; j++ {
				l := labels[at(i, j)]
				if l == 0 {
					continue
				}
				if lastLabel != 0 && j-last > 1 {
					gap := j - last - 1
					ext := extent(int(l - 1))
					switch {
					case l != lastLabel:
						// A tall sliver beside a component is the far edge
						// of the same object cut off by a highlight.
						if relaxed && gap <= wideMax && (sliver[l-1] || sliver[lastLabel-1]) {
							for k := last + 1; k < j; k++ {
								wide[at(i, k)] = int32(gap)
							}
						}
					case gap <= maxGap && gap*10 <= 3*ext:
						for k := last + 1; k < j; k++ {
							fill[at(i, k)] = true
						}
					case relaxed && gap <= wideMax && gap*20 <= 9*ext:
						for k := last + 1; k < j; k++ {
							wide[at(i, k)] = int32(gap)
						}
					}
				}
				last, lastLabel = j, l
			}
		}
	}
	scan(h, w, func(y, x int) int { return y*w + x }, func(c int) int { return x1[c] - x0[c] + 1 }, true)
	scan(w, h, func(x, y int) int { return y*w + x }, func(c int) int { return y1[c] - y0[c] + 1 }, false)
	// Accept wide candidates in vertical runs at least three times as long
	// as the widest gap in the run, or 1.5 times when the run has a nearly
	// constant width (a stripe, not a widening V).
	var widths []int32
	for x := 0; x < w; x++ {
		for y := 0; y < h; {
			if wide[y*w+x] == 0 {
				y++
				continue
			}
			y0 := y
			widths = widths[:0]
			for y < h && wide[y*w+x] > 0 {
				widths = append(widths, wide[y*w+x])
				y++
			}
			slices.Sort(widths)
			n := int32(len(widths))
			widest, typical := widths[n-1], widths[n/2]
			if n >= 3*widest || 2*n >= 3*typical && 2*widest <= 3*typical {
				for k := y0; k < y; k++ {
					fill[k*w+x] = true
				}
			}
		}
	}
	for p, v := range fill {
		if v {
			mask[p] = true
		}
	}
}

// floodSmooth grows the background, from the background components that
// touch the frame, into foreground pixels that are reached through smooth
// colour changes only (each 4-neighbour step below t/4 in L*a*b* on a
// 3×3-smoothed image) and whose plain distance to the background model is
// below floodLimit·t; protected pixels are never entered. A subject is
// bounded by an edge; a region that departs from the background model
// without any edge (the hot spot of a spotlit backdrop, an uneven sweep) is
// background the model did not capture.
func floodSmooth(a *analysis, mask []bool, plain []float32, t float32, protected []bool) {
	w, h := a.w, a.h
	lab := a.smoothLab()
	step2 := sq(t / 4)
	limit := floodLimit * t
	// Each pixel enters the queue at most once (it leaves the mask as it
	// does, or is a seed): one allocation of the largest size instead of
	// a series of growing copies.
	queue := make([]int32, 0, w*h)
	labels, comps := components(mask, w, h, false, false, nil)
	for p, l := range labels {
		if l > 0 && comps[l-1].touchesBorder {
			queue = append(queue, int32(p))
		}
	}
	for head := 0; head < len(queue); head++ {
		p := int(queue[head])
		x, y := p%w, p/w
		for d := 0; d < 4; d++ {
			q := p
			switch d {
			case 0:
				if x+1 >= w {
					continue
				}
				q = p + 1
			case 1:
				if x == 0 {
					continue
				}
				q = p - 1
			case 2:
				if y+1 >= h {
					continue
				}
				q = p + w
			default:
				if y == 0 {
					continue
				}
				q = p - w
			}
			if !mask[q] || protected[q] || plain[q] >= limit {
				continue
			}
			if sq(lab[3*p]-lab[3*q])+sq(lab[3*p+1]-lab[3*q+1])+sq(lab[3*p+2]-lab[3*q+2]) <= step2 {
				mask[q] = false
				queue = append(queue, int32(q))
			}
		}
	}
}

// floodLimit bounds, in thresholds, the plain background distance of the
// pixels the flood may turn back into background.
const floodLimit = 2

// ReferenceGeneralMask is general mode's coarse mask on the CPU from the
// analysis planes (w×h, 3 values per pixel: linear light and L*a*b*):
// the background fits, the classification rounds and the clean plates
// between them, as the CPU engine computes it. A device running some of
// those stages must give the same mask (package gpu's tests).
func ReferenceGeneralMask(w, h int, lin, lab []float32) []bool {
	return generalMask(&analysis{w: w, h: h, lin: lin, lab: lab})
}
