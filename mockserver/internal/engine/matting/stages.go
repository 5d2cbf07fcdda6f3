package matting

import (
	"context"
	"errors"
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// Stages is a device that runs the pipeline's per-pixel stages in place of
// the CPU: the analysis image (box reduction, optional median, colour
// conversion), the background distance of general mode and the
// full-resolution refinement with spill reduction. [NewAccelerated] builds a
// Remover on it; everything else (the background model's fits unless the
// StageRun is a [BackgroundFitter], the fields' grids and the rounds'
// thresholds unless it is a [FieldEvaluator], the mask clean-up unless it
// is a [Classifier], the choice and sums of the clean plate's
// samples unless it is a [PlateSampler], the plate's small grid, portrait
// segmentation, the refinement's plan with the band's local statistics
// unless it is a [RefinePlanner]) stays on the CPU. The GPU
// engine (package gpu, build tag cuda) implements it; the CPU versions of
// the same stages are the reference the device's results are compared with.
type Stages interface {
	// Begin starts one removal of img, whose rows start at Pix[0] (origin
	// (0,0)) and are Stride bytes apart. The StageRun must be closed.
	Begin(ctx context.Context, img *image.NRGBA) (StageRun, error)
}

// StageRun holds the device state of one removal (the uploaded image and
// the analysis planes). Its methods are called in the order Analyse (or
// AnalyseKept when the run is a [PlaneKeeper], in general mode),
// FitBackground (zero or more times, when the run is a
// [BackgroundFitter]), BGDistance or BGDistanceKept (zero or more times,
// each preceded by
// FieldGrid and, but for the first, FieldThreshold when the run is a
// [FieldEvaluator], the first also by FieldThreshold in general mode, each followed by Classify when the run
// is a [Classifier], and all but the last by SamplePlate when it is a
// [PlateSampler]), then PlanRefine when the run is a [RefinePlanner],
// else Refine, from one goroutine. The slices its methods
// return, except Refine's images, belong to the run: they stay valid
// until Close, after which the device may reuse their memory for another
// run, so the pipeline keeps none of them past Close.
type StageRun interface {
	// Analyse box-averages the image by factor (each analysis pixel is the
	// mean of a factor×factor block, clipped at the right and bottom
	// edges), applies a 3×3 median when preprocess is set, and converts to
	// linear light and L*a*b* with the tables of [ColourTables].
	Analyse(ctx context.Context, factor int, preprocess bool) (*Planes, error)
	// BGDistance returns, per analysis pixel, the shadow-tolerant L*a*b*
	// distance to a background field, the plain distance, and whether only
	// the shadow term explains the pixel. grid holds the field's L*a*b*
	// values (3 per node) on gw×gh nodes spaced step analysis pixels
	// apart; values between nodes are bilinear.
	BGDistance(ctx context.Context, grid []float32, gw, gh, step int) (dist, plain []float32, shadowed []bool, err error)
	// Refine computes the full-resolution alpha (and, with in.Spill, the
	// decontaminated foreground) from the coarse mask and the band
	// statistics.
	Refine(ctx context.Context, in *RefineInput) (*image.Alpha, *image.NRGBA, error)
	// Close releases the run's device resources.
	Close()
}

// Classifier is implemented by a StageRun whose device also cleans general
// mode's coarse mask up: when the run has it, each classification round
// calls Classify instead of the CPU's clean-up (after BGDistance; the
// CPU's version stays the reference, see [ReferenceClassify]).
type Classifier interface {
	// Classify returns the coarse mask of one classification round,
	// bit for bit ReferenceClassify(W, H, Lab, dist, plain, t) with the
	// analysis planes of Analyse: the pixels whose distance dist exceeds
	// t, without the 8-connected components that never reach 2t or are
	// small next to the largest, with narrow slits and enclosed holes
	// filled, the background flooded from the frame through smooth
	// colour changes of the 3×3-smoothed L*a*b* into pixels whose plain
	// distance is below 2t, and components and holes cleaned once more.
	// dist and plain are both nil after a [DistanceKeeper]'s
	// BGDistanceKept: the kept distances.
	Classify(ctx context.Context, dist, plain []float32, t float32) ([]bool, error)
}

// DistanceKeeper is implemented by a StageRun, also a [Classifier] and a
// [PlateSampler], that can leave a classification round's background
// distance on its device: when the run has it, general mode calls
// BGDistanceKept instead of BGDistance and hands nil distances and shadow
// flags to Classify and SamplePlate, so that planes the host never reads
// are not copied back (13 MB a round at 12 MP). After a device error the
// removal fails without computing them on the CPU.
type DistanceKeeper interface {
	// BGDistanceKept computes BGDistance's outputs and keeps them on the
	// device for the round's Classify and SamplePlate.
	BGDistanceKept(ctx context.Context, grid []float32, gw, gh, step int) error
}

// PlateSampler is implemented by a StageRun whose device also chooses and
// sums the clean plate's samples between general mode's classification
// rounds: when the run has it, each round but the last calls SamplePlate
// after Classify (or the CPU's clean-up) instead of the CPU's per-pixel
// part of the plate's re-estimate; the plate's small grid (blur and
// push-pull over the cells) stays on the CPU. The CPU's version stays the
// reference, see [ReferenceSamplePlate].
//
// The pipeline passes the slices the run's last BGDistance returned (dist
// and shadowed) and the mask its last Classify returned, unchanged since,
// so a device that kept its copies of them may read those instead of
// uploading the arguments (it must compare the slices, not assume them).
type PlateSampler interface {
	// SamplePlate returns one round's clean-plate samples, bit for bit
	// ReferenceSamplePlate(W, H, Lin, in) with the analysis planes of
	// Analyse.
	SamplePlate(ctx context.Context, in *PlateInput) (*PlateSamples, error)
}

// RefinePlanner is implemented by a StageRun whose device also plans the
// refinement from the coarse mask: when the run has it, the pipeline calls
// PlanRefine instead of planning on the CPU (the unknown band, its
// dilation, the confident pixels and the local statistics of
// [ReferenceRefinePlan]) and calling Refine. In general mode on a
// [Classifier] the mask is the slice the last Classify returned, unchanged
// since, so a device that kept its copy may read that instead of
// uploading it (comparing the slices, as for [PlateSampler]).
type RefinePlanner interface {
	// PlanRefine computes ReferenceRefinePlan's plan of in.Mask on the
	// device (with the raw plane of Analyse) and then Refine's images from
	// it, bit for bit Refine's on that plan. A cell with no confident
	// pixel of a kind within 4·StatsRadius takes the whole image's mean
	// of that kind, a sequential sum that [ConfidentMeans] computes.
	PlanRefine(ctx context.Context, in *RefinePlanInput) (alpha *image.Alpha, fg *image.NRGBA, err error)
}

// RefinePlanInput is what the refinement's plan reads, besides the
// analysis planes; the radii are [RefineRadii]'s at the analysis factor.
type RefinePlanInput struct {
	// Mask is the coarse mask, W×H.
	Mask []bool
	// BandRadius is the dilation (square, clipped at the frame) of the
	// cells with a 4-neighbour of the other label that makes the band.
	BandRadius int
	// StatsRadius, at least 1, is the first window radius of the local
	// statistics, doubled while at most 4·StatsRadius.
	StatsRadius int
	// Spill asks for the decontaminated foreground.
	Spill bool
}

// PlaneKeeper is implemented by a StageRun whose device runs all of
// general mode's stages (it is also a [BackgroundFitter], a
// [FieldEvaluator], a [DistanceKeeper], a [Classifier], a [PlateSampler]
// and a [RefinePlanner]): general mode then calls AnalyseKept instead of
// Analyse, and the analysis planes, which the host does not read, are not
// copied back (54 MB at 12 MP). After a device error the removal fails
// without any CPU stage, which would need them.
type PlaneKeeper interface {
	// AnalyseKept is Analyse, keeping the planes on the device only; it
	// returns the analysis image's size.
	AnalyseKept(ctx context.Context, factor int, preprocess bool) (w, h int, err error)
}

// BackgroundFitter is implemented by a StageRun whose device also fits
// general mode's background model: when the run has it, the pipeline calls
// FitBackground for each of the robust fits (the border's, then the whole
// frame's) instead of fitting on the CPU.
type BackgroundFitter interface {
	// FitBackground returns ReferenceFitBackground(W, H, Lin, Lab, in)
	// bit for bit, with the analysis planes of Analyse.
	FitBackground(ctx context.Context, in *FitInput) (*BackgroundFit, error)
}

// FitInput is one robust fit of the background model: [FitRounds] rounds
// of iteratively reweighted least squares from Init, each weighting the
// samples by Tukey's biweight of their L*a*b* residual, cut at
// max([TukeyCut]·median residual, [MinCut]).
type FitInput struct {
	// Samples are the analysis pixels fitted, as indices y·W+x; every sum
	// over them runs in this order.
	Samples []int32
	// Init is the model the first round's residuals are taken against;
	// nil starts from the per-channel medians of the samples' linear
	// light (the element at index len/2 once sorted), the other
	// coefficients zero.
	Init *BackgroundCoef
	// Residuals asks for the final model's residuals.
	Residuals bool
}

// BackgroundCoef is a background model: per linear-light channel, the
// coefficients of 1, x, y, x², xy and y² over the analysis image's
// coordinates normalised to [-1, 1] (pixel centres).
type BackgroundCoef [3][PolyTerms]float64

// BackgroundFit is the result of a [FitInput].
type BackgroundFit struct {
	// Coef is the fitted model.
	Coef BackgroundCoef
	// Residuals are the samples' L*a*b* distances to Coef, in the order
	// of FitInput.Samples, when asked for.
	Residuals []float32
}

// FieldEvaluator is implemented by a StageRun whose device also evaluates
// general mode's background fields: when the run has it, the pipeline
// gets each field's L*a*b* grid (which BGDistance then reads) and each
// classification round's threshold from it instead of computing them on
// the CPU.
type FieldEvaluator interface {
	// FieldGrid returns ReferenceFieldGrid(W, H, f, step) bit for bit.
	FieldGrid(ctx context.Context, f *Field, step int) (grid []float32, gw, gh int, err error)
	// FieldThreshold returns ReferenceFieldThreshold(W, H, Lab, f, use)
	// bit for bit, with the L*a*b* planes of Analyse.
	FieldThreshold(ctx context.Context, f *Field, use []bool) (float32, error)
}

// Field is a background field: the linear light it predicts at each
// analysis pixel, from the fitted model or, when Plate is set, a clean
// plate.
type Field struct {
	// Model is the fitted model, used when Plate is nil.
	Model BackgroundCoef
	// Plate is the clean plate, or nil.
	Plate *PlateField
}

// PlateField is a clean plate: linear light on a coarse grid of cells,
// interpolated bilinearly between cell centres (clamped at the outer
// ones).
type PlateField struct {
	// Cell is the cell size in analysis pixels, at least 1.
	Cell int
	// GW and GH are the grid's size in cells, ceil(W/Cell)×ceil(H/Cell).
	GW, GH int
	// Col holds 3 values (r, g, b) per cell, in raster order.
	Col []float32
}

// PlateInput is what the choice of one round's clean-plate samples reads,
// besides the analysis planes.
type PlateInput struct {
	// Mask is the round's coarse mask, W×H.
	Mask []bool
	// Dist and Shadowed are the round's background distance and shadow
	// flags (BGDistance's dist and shadowed), both nil after a
	// [DistanceKeeper]'s BGDistanceKept: the kept ones.
	Dist     []float32
	Shadowed []bool
	// T is the round's threshold: samples have a distance below T/2.
	T float32
	// Radius is the half-size of the square dilation of Mask that samples
	// must lie outside of (clipped at the frame; none when ≤ 0).
	Radius int
	// Cell is the plate's cell size in analysis pixels, at least 1.
	Cell int
}

// PlateSamples is one round's clean-plate samples.
type PlateSamples struct {
	// Use marks the samples, W×H: not in Mask dilated by Radius, not
	// Shadowed, and of Dist below T/2.
	Use []bool
	// Sums holds 4 values per cell, for ceil(W/Cell)×ceil(H/Cell) cells
	// in raster order: the sums of the samples' linear light (r, g, b)
	// and their count, each cell's samples added in float64 rows top to
	// bottom, each row left to right (so the sums are the CPU's bit for
	// bit).
	Sums []float64
	// Count is the number of samples.
	Count int
}

// Planes is the analysis image of one removal, 3 float32 values per pixel
// in raster order.
type Planes struct {
	// W and H are the analysis size.
	W, H int
	// SRGB is sRGB-encoded in [0,1], after the optional median.
	SRGB []float32
	// Raw is SRGB before the median (the same slice without it).
	Raw []float32
	// Lin is linear light.
	Lin []float32
	// Lab is CIE L*a*b* (D65).
	Lab []float32
}

// RefineInput is what the full-resolution refinement needs from the
// analysis resolution.
type RefineInput struct {
	// W, H and Factor are the analysis size and reduction factor.
	W, H, Factor int
	// Mask is the coarse mask, 1 for subject, per analysis cell.
	Mask []uint8
	// Band is 1 for the cells of the unknown band, refined pixel by pixel.
	Band []uint8
	// Index gives each cell's entry in Stats, or -1.
	Index []int32
	// Stats holds 8 values per entry: the local foreground colour (3),
	// background colour (3), foreground variance and background variance,
	// in sRGB [0,1] units.
	Stats []float32
	// Spill asks for the decontaminated foreground.
	Spill bool
}

// StatsStride is the number of float32 values per entry of
// RefineInput.Stats.
const StatsStride = 8

// LUTSize is the interval count of the colour tables: a table has
// LUTSize+2 entries and is indexed by v·LUTSize for v in [0,1].
const LUTSize = lutSize

// ColourTables returns copies of the tables the colour conversion
// interpolates: sRGB to linear light, and the L*a*b* companding function.
func ColourTables() (lin, cbrt []float32) {
	return append([]float32(nil), linLUT[:]...), append([]float32(nil), cbrtLUT[:]...)
}

// CompositeTables returns copies of the tables a shadow's shading reads:
// gamma, linear light in [0,1] to sRGB in [0,1] (LUTSize+2 entries, read
// like the colour tables), and srgb8, each 8-bit sRGB value in linear
// light (256 entries). Composite shades a background value b under a
// shadow s > 0 as lookup(gamma, srgb8[b]·(1-s))·255.
func CompositeTables() (gamma, srgb8 []float32) {
	return append([]float32(nil), gammaLUT[:]...), append([]float32(nil), srgb8ToLinear[:]...)
}

// RemoveCompositor is implemented by a Remover that removes the
// background and composites the subject in one call, so that a device
// keeps the image and the matte between the two instead of receiving them
// again (the GPU engine). [RemoveAndComposite] uses it.
type RemoveCompositor interface {
	// RemoveAndComposite returns RemoveBackground(ctx, img, o)'s matte
	// and its composite onto bg, as [Composite] makes it.
	RemoveAndComposite(ctx context.Context, img *image.NRGBA, o Options, bg Background) (*Matte, *image.NRGBA, error)
}

// RunCompositor is implemented by a StageRun that composites its own
// image on its device: [NewAccelerated]'s RemoveAndComposite calls it
// once the refinement is done, before Close.
type RunCompositor interface {
	// CompositeRun returns Composite(img, m, bg) for the image img that
	// Begin uploaded (its rectangle at the origin) and the matte m the
	// run's refinement returned (or another of the same size), or nil
	// and no error when the run cannot (the caller composites then).
	CompositeRun(ctx context.Context, m *Matte, bg Background) (*image.NRGBA, error)
}

// RemoveAndComposite removes img's background with r and composites the
// subject onto bg: in one call when r is a [RemoveCompositor], else
// RemoveBackground and then [CompositeWith]. The matte is
// RemoveBackground's and the composite [Composite]'s.
func RemoveAndComposite(ctx context.Context, r Remover, img *image.NRGBA, o Options, bg Background) (*Matte, *image.NRGBA, error) {
	if rc, ok := r.(RemoveCompositor); ok {
		return rc.RemoveAndComposite(ctx, img, o, bg)
	}
	m, err := r.RemoveBackground(ctx, img, o)
	if err != nil {
		return nil, nil, err
	}
	out, err := CompositeWith(ctx, r, img, m, bg)
	if err != nil {
		return nil, nil, err
	}
	return m, out, nil
}

// Compositor is implemented by removers that composite on their device.
// Composite has the contract of the package's Composite function.
type Compositor interface {
	Composite(ctx context.Context, fg *image.NRGBA, m *Matte, bg Background) (*image.NRGBA, error)
}

// CompositeWith composites with r when it is a Compositor, otherwise with
// the package's Composite.
func CompositeWith(ctx context.Context, r Remover, fg *image.NRGBA, m *Matte, bg Background) (*image.NRGBA, error) {
	if c, ok := r.(Compositor); ok {
		return c.Composite(ctx, fg, m, bg)
	}
	return Composite(fg, m, bg), nil
}

// accelerated is the Remover of NewAccelerated.
type accelerated struct {
	stages Stages
}

// NewAccelerated returns a Remover that runs the stages of s on its device
// and the rest of the pipeline on the CPU, with the CPU engine's options
// and analysis sizes. It is also a [RemoveCompositor]. It is safe for
// concurrent use when s is.
func NewAccelerated(s Stages) Remover { return &accelerated{stages: s} }

var _ RemoveCompositor = (*accelerated)(nil)

// RemoveBackground computes the matte of img (see CPU.RemoveBackground).
func (e *accelerated) RemoveBackground(ctx context.Context, img *image.NRGBA, o Options) (*Matte, error) {
	r, err := runPipeline(ctx, defaultAnalysisPixels, e.stages, img, o, false, nil)
	if err != nil {
		return nil, err
	}
	return &Matte{Alpha: r.alpha, Foreground: r.fg}, nil
}

// RemoveAndComposite removes img's background and composites the subject
// onto bg (RemoveCompositor): on the run's device before it closes when
// the run is a RunCompositor, else with the stages' Composite when they
// are a Compositor, else with the package's Composite.
func (e *accelerated) RemoveAndComposite(ctx context.Context, img *image.NRGBA, o Options, bg Background) (*Matte, *image.NRGBA, error) {
	var out *image.NRGBA
	r, err := runPipeline(ctx, defaultAnalysisPixels, e.stages, img, o, false, func(run StageRun, r *refined) error {
		rc, ok := run.(RunCompositor)
		if !ok {
			return nil
		}
		var err error
		out, err = rc.CompositeRun(ctx, &Matte{Alpha: r.alpha, Foreground: r.fg}, bg)
		if err == nil && out != nil && out.Rect.Size() != r.alpha.Rect.Size() {
			err = errors.New("matting: the device's composite does not match the image size")
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	m := &Matte{Alpha: r.alpha, Foreground: r.fg}
	switch c, ok := e.stages.(Compositor); {
	case out != nil:
		out.Rect = img.Rect
	case ok:
		if out, err = c.Composite(ctx, img, m, bg); err != nil {
			return nil, nil, err
		}
	default:
		out = Composite(img, m, bg)
	}
	return m, out, nil
}

// deviceAnalysis builds the analysis from the device's planes.
func deviceAnalysis(ctx context.Context, run StageRun, f int, preprocess, general bool) (*analysis, error) {
	if k, ok := hostless(run); ok && general {
		w, h, err := k.AnalyseKept(ctx, f, preprocess)
		if err != nil {
			return nil, err
		}
		if w < 1 || h < 1 {
			return nil, errors.New("matting: the device's analysis has no pixels")
		}
		return &analysis{w: w, h: h, factor: f, dev: run, ctx: ctx, hostless: true}, nil
	}
	p, err := run.Analyse(ctx, f, preprocess)
	if err != nil {
		return nil, err
	}
	return &analysis{w: p.W, h: p.H, factor: f, srgb: p.SRGB, raw: p.Raw, lin: p.Lin, lab: p.Lab, dev: run, ctx: ctx}, nil
}

// hostless returns run as a PlaneKeeper when it runs every stage of
// general mode, so that the analysis planes can stay on its device.
func hostless(run StageRun) (PlaneKeeper, bool) {
	k, ok := run.(PlaneKeeper)
	_, f := run.(BackgroundFitter)
	_, fe := run.(FieldEvaluator)
	_, d := run.(DistanceKeeper)
	_, c := run.(Classifier)
	_, p := run.(PlateSampler)
	_, rp := run.(RefinePlanner)
	return k, ok && f && fe && d && c && p && rp
}

// deviceRefine runs the full-resolution refinement on the device: planned
// there too when the run is a RefinePlanner, else planned on the CPU and
// uploaded. A device error fails the removal either way.
func deviceRefine(ctx context.Context, run StageRun, a *analysis, mask []bool, spill bool) (*refined, error) {
	if rp, ok := run.(RefinePlanner); ok && a.devErr == nil {
		rBand, rStats := refineRadii(a.factor)
		alpha, fg, err := rp.PlanRefine(ctx, &RefinePlanInput{Mask: mask, BandRadius: rBand, StatsRadius: rStats, Spill: spill})
		if err != nil {
			return nil, err
		}
		if alpha == nil || spill != (fg != nil) {
			return nil, errors.New("matting: the device's refinement lacks its images")
		}
		return &refined{alpha: alpha, fg: fg}, nil
	}
	p := planRefine(a, mask)
	in := &RefineInput{
		W: a.w, H: a.h, Factor: a.factor,
		Mask:  make([]uint8, len(mask)),
		Band:  make([]uint8, len(mask)),
		Index: p.index,
		Stats: packStats(p.stats),
		Spill: spill,
	}
	parallel.Rows(len(mask), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if mask[i] {
				in.Mask[i] = 1
			}
			if p.band[i] {
				in.Band[i] = 1
			}
		}
	})
	alpha, fg, err := run.Refine(ctx, in)
	if err != nil {
		return nil, err
	}
	return &refined{alpha: alpha, fg: fg}, nil
}
