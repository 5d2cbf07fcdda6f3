package matting

import (
	"context"
	"errors"
	"fmt"
	"image"
)

// Mode selects the segmentation strategy.
type Mode string

const (
	// ModeGeneral models the background from the frame border; suited to
	// products and objects on plain or gradient backdrops.
	ModeGeneral Mode = "general"
	// ModePortrait seeds the subject from face boxes and models textured
	// surroundings; suited to people.
	ModePortrait Mode = "portrait"
)

// Options controls one background removal.
type Options struct {
	// Mode is ModeGeneral or ModePortrait; empty means ModeGeneral.
	Mode Mode
	// Preprocess enables denoising of the analysis image before
	// classification (a 3×3 median at analysis resolution).
	Preprocess bool
	// SpillReduction decontaminates edge colours from the background and
	// fills Matte.Foreground.
	SpillReduction bool
	// Faces are face boxes in image coordinates that seed the subject in
	// portrait mode; may be empty (portrait mode then falls back to the
	// border model with the bottom edge open). Ignored in general mode.
	Faces []image.Rectangle
}

// Matte is the result of a background removal.
type Matte struct {
	// Alpha is the subject's opacity, with the input's bounds.
	Alpha *image.Alpha
	// Foreground, when SpillReduction was requested, holds the subject's
	// colours with the background's contribution removed from edge pixels
	// (opaque; the opacity is Alpha). Nil otherwise.
	Foreground *image.NRGBA
}

// Remover removes the background of an image. Implementations must be safe
// for concurrent use and deterministic.
type Remover interface {
	RemoveBackground(ctx context.Context, img *image.NRGBA, o Options) (*Matte, error)
}

var (
	// ErrEmptyImage is returned for a nil or empty input image.
	ErrEmptyImage = errors.New("matting: empty image")
	// ErrUnknownMode is returned (wrapped) for a mode other than general or
	// portrait.
	ErrUnknownMode = errors.New("matting: unknown mode")
)

// defaultAnalysisPixels bounds the resolution the coarse mask is computed
// at; larger inputs are box-reduced by an integer factor first.
const defaultAnalysisPixels = 1_500_000

// portraitAnalysisPixels bounds the analysis resolution in portrait mode.
const portraitAnalysisPixels = 500_000

// CPU is the pure-Go reference Remover. The zero value is ready to use and
// equivalent to NewCPU(). It holds no per-call state and is safe for
// concurrent use.
type CPU struct {
	analysisPixels int
}

// NewCPU returns the CPU reference engine.
func NewCPU() *CPU { return &CPU{analysisPixels: defaultAnalysisPixels} }

var _ Remover = (*CPU)(nil)

// RemoveBackground computes the matte of img. It checks ctx between stages
// and returns ctx.Err() when cancelled.
func (c *CPU) RemoveBackground(ctx context.Context, img *image.NRGBA, o Options) (*Matte, error) {
	r, err := c.run(ctx, img, o, false)
	if err != nil {
		return nil, err
	}
	return &Matte{Alpha: r.alpha, Foreground: r.fg}, nil
}

// run is RemoveBackground with access to the unrefined mask (for tests).
func (c *CPU) run(ctx context.Context, img *image.NRGBA, o Options, wantUnrefined bool) (*refined, error) {
	return runPipeline(ctx, c.analysisPixels, nil, img, o, wantUnrefined, nil)
}

// runPipeline is the pipeline of every Remover of the package: limit
// bounds the analysis size (0: the default), stages (may be nil) run the
// per-pixel stages on a device; then, when not nil, is called with the
// device's run and the result (its images at the origin, as the run's
// image) before the run is closed.
func runPipeline(ctx context.Context, limit int, stages Stages, img *image.NRGBA, o Options, wantUnrefined bool,
	then func(StageRun, *refined) error) (*refined, error) {
	if img == nil || img.Rect.Empty() {
		return nil, ErrEmptyImage
	}
	mode := o.Mode
	if mode == "" {
		mode = ModeGeneral
	}
	if mode != ModeGeneral && mode != ModePortrait {
		return nil, fmt.Errorf("%w %q", ErrUnknownMode, string(o.Mode))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src := img
	origin := img.Rect.Min
	if origin != (image.Point{}) || img.Stride < 4*img.Rect.Dx() {
		src = image.NewNRGBA(image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy()))
		for y := 0; y < src.Rect.Dy(); y++ {
			o := img.PixOffset(origin.X, origin.Y+y)
			copy(src.Pix[y*src.Stride:y*src.Stride+4*src.Rect.Dx()], img.Pix[o:o+4*src.Rect.Dx()])
		}
	}
	if limit <= 0 {
		limit = defaultAnalysisPixels
	}
	if mode == ModePortrait {
		// the graph cut is superlinear; portraits need less detail
		limit = min(limit, portraitAnalysisPixels)
	}
	f := analysisFactor(src.Rect.Dx(), src.Rect.Dy(), limit)
	var a *analysis
	var run StageRun
	if stages != nil {
		var err error
		if run, err = stages.Begin(ctx, src); err != nil {
			return nil, err
		}
		defer run.Close()
		if a, err = deviceAnalysis(ctx, run, f, o.Preprocess, mode == ModeGeneral); err != nil {
			return nil, err
		}
	} else {
		a = newAnalysis(src, f, o.Preprocess)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var mask []bool
	if mode == ModePortrait {
		faces := make([]image.Rectangle, 0, len(o.Faces))
		for _, fr := range o.Faces {
			fr = fr.Sub(origin).Intersect(src.Rect)
			if fr.Empty() {
				continue
			}
			faces = append(faces, image.Rect(fr.Min.X/f, fr.Min.Y/f, (fr.Max.X+f-1)/f, (fr.Max.Y+f-1)/f))
		}
		var err error
		if mask, err = portraitMask(ctx, a, faces); err != nil {
			return nil, err
		}
	} else {
		mask = generalMask(a)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if a.devErr != nil {
		return nil, a.devErr
	}
	var r *refined
	if run != nil && !wantUnrefined {
		var err error
		if r, err = deviceRefine(ctx, run, a, mask, o.SpillReduction); err != nil {
			return nil, err
		}
	} else {
		r = refine(src, a, mask, o.SpillReduction, wantUnrefined)
	}
	if then != nil && run != nil {
		if err := then(run, r); err != nil {
			return nil, err
		}
	}
	// Report results in the caller's coordinate space.
	r.alpha.Rect = img.Rect
	if r.unrefined != nil {
		r.unrefined.Rect = img.Rect
	}
	if r.fg != nil {
		r.fg.Rect = img.Rect
	}
	return r, nil
}
