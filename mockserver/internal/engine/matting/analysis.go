package matting

import (
	"context"
	"errors"
	"image"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// analysis is the reduced-resolution working copy the coarse mask is
// computed on: every coarse pixel is the box average of a factor×factor block
// of the input.
type analysis struct {
	w, h   int
	factor int
	srgb   []float32 // 3 per pixel, sRGB-encoded in [0,1] (preprocessed)
	raw    []float32 // srgb before preprocessing (the same slice without)
	lin    []float32 // 3 per pixel, linear light
	lab    []float32 // 3 per pixel, L*a*b*

	smoothed []float32 // lazily computed 3×3 box average of lab

	// dev, when set, computes the background distance (bgDistance) on a
	// device, with ctx; devErr is its first error, after which the CPU
	// takes over and the pipeline fails once the mask is done.
	dev    StageRun
	ctx    context.Context
	devErr error
	// hostless is set when the planes stayed on dev (PlaneKeeper): srgb,
	// raw, lin and lab are nil, and after a device error no CPU stage
	// runs.
	hostless bool
}

// smoothLab returns the L*a*b* planes averaged over 3×3 neighbourhoods,
// which suppresses pixel noise for gradient tests.
func (a *analysis) smoothLab() []float32 {
	if a.smoothed != nil {
		return a.smoothed
	}
	w, h := a.w, a.h
	out := make([]float32, len(a.lab))
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				var s [3]float32
				n := float32(0)
				for dy := -1; dy <= 1; dy++ {
					yy := y + dy
					if yy < 0 || yy >= h {
						continue
					}
					for dx := -1; dx <= 1; dx++ {
						xx := x + dx
						if xx < 0 || xx >= w {
							continue
						}
						o := 3 * (yy*w + xx)
						s[0] += a.lab[o]
						s[1] += a.lab[o+1]
						s[2] += a.lab[o+2]
						n++
					}
				}
				o := 3 * (y*w + x)
				out[o], out[o+1], out[o+2] = s[0]/n, s[1]/n, s[2]/n
			}
		}
	})
	a.smoothed = out
	return out
}

// analysisFactor picks the integer reduction so that the analysis image has
// at most maxPixels pixels.
func analysisFactor(w, h, maxPixels int) int {
	f := 1
	for (w+f-1)/f*((h+f-1)/f) > maxPixels {
		f++
	}
	return f
}

// newAnalysis box-averages img by factor f and derives the colour planes.
func newAnalysis(img *image.NRGBA, f int, preprocess bool) *analysis {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	w, h := (W+f-1)/f, (H+f-1)/f
	a := &analysis{w: w, h: h, factor: f, srgb: make([]float32, 3*w*h)}
	parallel.Rows(h, func(y0, y1 int) {
		sums := make([]uint32, 3*w)
		for cy := y0; cy < y1; cy++ {
			clear(sums)
			sy0, sy1 := cy*f, min(cy*f+f, H)
			for sy := sy0; sy < sy1; sy++ {
				row := img.Pix[sy*img.Stride : sy*img.Stride+4*W]
				for sx := 0; sx < W; sx++ {
					cx := sx / f
					sums[3*cx] += uint32(row[4*sx])
					sums[3*cx+1] += uint32(row[4*sx+1])
					sums[3*cx+2] += uint32(row[4*sx+2])
				}
			}
			for cx := 0; cx < w; cx++ {
				n := float32((sy1 - sy0) * (min(cx*f+f, W) - cx*f))
				o := 3 * (cy*w + cx)
				a.srgb[o] = float32(sums[3*cx]) / (255 * n)
				a.srgb[o+1] = float32(sums[3*cx+1]) / (255 * n)
				a.srgb[o+2] = float32(sums[3*cx+2]) / (255 * n)
			}
		}
	})
	a.raw = a.srgb
	if preprocess {
		a.srgb = median3(a.srgb, w, h)
	}
	a.lin = make([]float32, 3*w*h)
	a.lab = make([]float32, 3*w*h)
	parallel.Rows(h, func(y0, y1 int) {
		for i := 3 * y0 * w; i < 3*y1*w; i += 3 {
			r, g, b := toLin(a.srgb[i]), toLin(a.srgb[i+1]), toLin(a.srgb[i+2])
			a.lin[i], a.lin[i+1], a.lin[i+2] = r, g, b
			a.lab[i], a.lab[i+1], a.lab[i+2] = linToLab(r, g, b)
		}
	})
	return a
}

// median3 is the optional preprocessing: a 3×3 per-channel median that
// removes sensor noise and compression speckle before classification while
// keeping edges in place.
func median3(src []float32, w, h int) []float32 {
	dst := make([]float32, len(src))
	parallel.Rows(h, func(y0, y1 int) {
		var win [9]float32
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				for c := 0; c < 3; c++ {
					n := 0
					for dy := -1; dy <= 1; dy++ {
						yy := min(max(y+dy, 0), h-1)
						for dx := -1; dx <= 1; dx++ {
							xx := min(max(x+dx, 0), w-1)
							win[n] = src[3*(yy*w+xx)+c]
							n++
						}
					}
					// insertion sort of 9 values is cheap and branch-predictable
					for i := 1; i < 9; i++ {
						v := win[i]
						j := i - 1
						for j >= 0 && win[j] > v {
							win[j+1] = win[j]
							j--
						}
						win[j+1] = v
					}
					dst[3*(y*w+x)+c] = win[4]
				}
			}
		}
	})
	return dst
}

// PolyTerms is the number of terms of the quadratic spatial colour model
// (see [BackgroundCoef]).
const PolyTerms = 6

// The robust fit of the background model ([FitInput]): FitRounds rounds,
// each weighting the samples by Tukey's biweight with the cut
// max(TukeyCut·median residual, MinCut). TukeyCut is the biweight's usual
// 4.685 times 1.4826, which turns the median absolute residual into a
// standard deviation; MinCut keeps a noise-free backdrop from rejecting
// everything.
const (
	FitRounds = 6
	TukeyCut  = 4.685 * 1.4826
	MinCut    = 3.0
)

func polyBasis(x, y float64) [PolyTerms]float64 {
	return [PolyTerms]float64{1, x, y, x * x, x * y, y * y}
}

// bgModel is a smooth background: a quadratic surface per linear-light
// channel over normalised coordinates in [-1,1], which covers flat
// backdrops, linear gradients and vignettes.
type bgModel struct {
	coef BackgroundCoef
	w, h int
}

func (m *bgModel) coords(x, y int) (float64, float64) {
	return (float64(x)+0.5)/float64(m.w)*2 - 1, (float64(y)+0.5)/float64(m.h)*2 - 1
}

// at returns the modelled linear colour at analysis pixel (x,y).
func (m *bgModel) at(x, y int) (float32, float32, float32) {
	nx, ny := m.coords(x, y)
	b := polyBasis(nx, ny)
	var out [3]float64
	for c := 0; c < 3; c++ {
		s := 0.0
		for k := 0; k < PolyTerms; k++ {
			s += m.coef[c][k] * b[k]
		}
		out[c] = math.Max(0, s)
	}
	return float32(out[0]), float32(out[1]), float32(out[2])
}

// sample is one pixel used to fit the background model.
type sample struct {
	x, y int
	idx  int // pixel index in the analysis planes
}

// initialModel is the per-channel median of the samples' linear light,
// flat: robust to up to half outliers.
func initialModel(a *analysis, samples []sample) *bgModel {
	m := &bgModel{w: a.w, h: a.h}
	vals := make([]float32, len(samples))
	for c := 0; c < 3; c++ {
		for i, s := range samples {
			vals[i] = a.lin[3*s.idx+c]
		}
		m.coef[c][0] = float64(medianOf(vals))
	}
	return m
}

// fitOn is fitBackground on the analysis' device when it is a
// BackgroundFitter, else (or after a device error) on the CPU; the
// residuals are returned when wantRes is set.
func fitOn(a *analysis, samples []sample, init *bgModel, wantRes bool) (*bgModel, []float32) {
	if f, ok := a.dev.(BackgroundFitter); ok && a.devErr == nil {
		in := &FitInput{Samples: make([]int32, len(samples)), Residuals: wantRes}
		if init != nil {
			in.Init = &init.coef
		}
		for i, s := range samples {
			in.Samples[i] = int32(s.idx)
		}
		fit, err := f.FitBackground(a.ctx, in)
		if err == nil && wantRes && (fit == nil || len(fit.Residuals) != len(samples)) {
			err = errors.New("matting: the device's background fit lacks its residuals")
		}
		if err == nil && fit == nil {
			err = errors.New("matting: the device returned no background fit")
		}
		if err == nil {
			return &bgModel{coef: fit.Coef, w: a.w, h: a.h}, fit.Residuals
		}
		// As in bgDistance: the pipeline fails with the device's error
		// once the mask stage is done.
		a.devErr = err
	}
	if a.hostless {
		return &bgModel{w: a.w, h: a.h}, make([]float32, len(samples)) // the removal fails
	}
	return fitBackground(a, samples, init)
}

// fitBackground fits the model to samples by iteratively reweighted least
// squares with Tukey weights on the L*a*b* residual, so that subject pixels
// among the samples (a product touching the frame, a torso at the bottom
// edge) stop influencing the fit, starting from init (from initialModel
// when nil). It returns the model and the residuals of the final fit.
func fitBackground(a *analysis, samples []sample, init *bgModel) (*bgModel, []float32) {
	if init == nil {
		init = initialModel(a, samples)
	}
	m := &bgModel{w: a.w, h: a.h, coef: init.coef}
	res := make([]float32, len(samples))
	weights := make([]float64, len(samples))
	basis := make([][PolyTerms]float64, len(samples))
	for i, s := range samples {
		nx, ny := m.coords(s.x, s.y)
		basis[i] = polyBasis(nx, ny)
	}
	scratch := make([]float32, len(samples)) // medianOf reorders its input
	for iter := 0; iter < FitRounds; iter++ {
		residuals(a, m, samples, res)
		scale := float64(medianOf(append(scratch[:0], res...)))
		cut := math.Max(TukeyCut*scale, MinCut)
		for i, r := range res {
			u := float64(r) / cut
			if u >= 1 {
				weights[i] = 0
			} else {
				weights[i] = (1 - u*u) * (1 - u*u)
			}
		}
		var ata [PolyTerms][PolyTerms]float64
		var atb [3][PolyTerms]float64
		// Each entry of the normal equations is a sum over the samples
		// in their order; the rows p are split between two goroutines
		// (about equal work each), which keeps every sum's order and so
		// its value.
		parallel.For(len(normalRows), parallel.Bands(len(normalRows), 1), func(_, lo, hi int) {
			for _, rows := range normalRows[lo:hi] {
				normalSums(a, samples, weights, basis, rows, &ata, &atb)
			}
		})
		for p := 0; p < PolyTerms; p++ {
			for q := 0; q < p; q++ {
				ata[p][q] = ata[q][p]
			}
		}
		for c := 0; c < 3; c++ {
			if sol, ok := solve(ata, atb[c]); ok {
				m.coef[c] = sol
			}
		}
	}
	residuals(a, m, samples, res)
	return m, res
}

// ReferenceFitBackground is a robust background fit on the CPU, from the
// analysis size and its linear-light and L*a*b* planes (3 values per
// pixel): the result a [BackgroundFitter] must reproduce. Every sample
// must lie in the w×h image.
func ReferenceFitBackground(w, h int, lin, lab []float32, in *FitInput) *BackgroundFit {
	a := &analysis{w: w, h: h, lin: lin, lab: lab}
	samples := make([]sample, len(in.Samples))
	for i, p := range in.Samples {
		samples[i] = sample{x: int(p) % w, y: int(p) / w, idx: int(p)}
	}
	var init *bgModel
	if in.Init != nil {
		init = &bgModel{coef: *in.Init, w: w, h: h}
	}
	m, res := fitBackground(a, samples, init)
	fit := &BackgroundFit{Coef: m.coef}
	if in.Residuals {
		fit.Residuals = res
	}
	return fit
}

// residuals sets res[i] to the L*a*b* distance between sample i and the
// model; each is independent of the others, so bands of samples run in
// parallel.
// normalRows splits the rows of the normal equations in two halves of
// about equal work (row p has PolyTerms-p+3 products per sample).
var normalRows = [2][]int{{0, 3, 5}, {1, 2, 4}}

// normalSums sets the given rows of the weighted normal equations of the
// samples: ata's upper triangle and atb, each a sum in sample order.
func normalSums(a *analysis, samples []sample, weights []float64, basis [][PolyTerms]float64, rows []int, ata *[PolyTerms][PolyTerms]float64, atb *[3][PolyTerms]float64) {
	// Local sums (no cache line shared with the other half while
	// summing), copied out at the end.
	var lata [PolyTerms][PolyTerms]float64
	var latb [3][PolyTerms]float64
	for i, s := range samples {
		w := weights[i]
		if w == 0 {
			continue
		}
		b := &basis[i]
		lin := a.lin[3*s.idx : 3*s.idx+3]
		for _, p := range rows {
			wb := w * b[p]
			for q := p; q < PolyTerms; q++ {
				lata[p][q] += wb * b[q]
			}
			for c := 0; c < 3; c++ {
				latb[c][p] += wb * float64(lin[c])
			}
		}
	}
	for _, p := range rows {
		ata[p] = lata[p]
		for c := 0; c < 3; c++ {
			atb[c][p] = latb[c][p]
		}
	}
}

func residuals(a *analysis, m *bgModel, samples []sample, res []float32) {
	parallel.For(len(samples), parallel.Bands(len(samples), 4096), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := samples[i]
			r, g, b := m.at(s.x, s.y)
			L, A, B := linToLab(r, g, b)
			o := 3 * s.idx
			res[i] = float32(math.Sqrt(float64(sq(a.lab[o]-L) + sq(a.lab[o+1]-A) + sq(a.lab[o+2]-B))))
		}
	})
}

// solve solves the symmetric system with a small ridge, by Gaussian
// elimination with partial pivoting.
func solve(m [PolyTerms][PolyTerms]float64, v [PolyTerms]float64) ([PolyTerms]float64, bool) {
	const n = PolyTerms
	var aug [n][n + 1]float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			aug[i][j] = m[i][j]
		}
		aug[i][i] += 1e-6 * (1 + m[0][0])
		aug[i][n] = v[i]
	}
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(aug[r][col]) > math.Abs(aug[piv][col]) {
				piv = r
			}
		}
		if math.Abs(aug[piv][col]) < 1e-12 {
			return [n]float64{}, false
		}
		aug[col], aug[piv] = aug[piv], aug[col]
		for r := 0; r < n; r++ {
			if r == col {
				continue
			}
			f := aug[r][col] / aug[col][col]
			for c := col; c <= n; c++ {
				aug[r][c] -= f * aug[col][c]
			}
		}
	}
	var out [n]float64
	for i := 0; i < n; i++ {
		out[i] = aug[i][n] / aug[i][i]
	}
	return out, true
}
