package resize

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is the API's resize parameter: how an upscale is done.
type Mode string

// The resize modes. The empty Mode means ModeAuto.
const (
	ModeAuto         Mode = "auto"
	ModeGeneral      Mode = "general"
	ModeSmallDetails Mode = "smallDetails"
)

// Valid reports whether m is one of the modes or empty.
func (m Mode) Valid() bool {
	switch m {
	case "", ModeAuto, ModeGeneral, ModeSmallDetails:
		return true
	}
	return false
}

// Limits from the hosted API documentation ("AI upscaling").
const (
	// MinAIShortSide is the shortest source short side that is upscaled by
	// the "AI" path; smaller sources are upscaled classically.
	MinAIShortSide = 64
	// MaxLongSideGeneral caps the output long side of an upscale with
	// resize=general or auto.
	MaxLongSideGeneral = 20000
	// MaxLongSideSmallDetails caps the output long side of an upscale with
	// resize=smallDetails.
	MaxLongSideSmallDetails = 8192
)

// The size parameter names, in priority order, as Plan.Param reports them.
const (
	ParamWidth  = "width"
	ParamHeight = "height"
	ParamLong   = "long"
	ParamShort  = "short"
	ParamScale  = "scale"
)

// ErrInvalidRequest is returned (wrapped) by PlanSize for a negative size
// parameter, an unknown mode or an empty source.
var ErrInvalidRequest = errors.New("resize: invalid request")

// maxRequestValue bounds request values before any arithmetic, so absurd
// values cannot overflow; anything this large is clamped by the long-side
// limit anyway.
const maxRequestValue = 1 << 30

// Request is the set of size parameters of a job; 0 means unset.
type Request struct {
	Width  int  // target width in pixels; height follows the aspect ratio
	Height int  // target height in pixels; width follows the aspect ratio
	Long   int  // target long edge in pixels
	Short  int  // target short edge in pixels
	Scale  int  // percentage: 200 doubles both sides, 50 halves them
	Mode   Mode // upscaling mode; "" = auto
}

// Requested reports whether any size parameter is set.
func (r Request) Requested() bool {
	return r.Width != 0 || r.Height != 0 || r.Long != 0 || r.Short != 0 || r.Scale != 0
}

// Plan is the outcome of PlanSize.
type Plan struct {
	// Width and Height are the output size (the source size when nothing
	// is requested or the request is a no-op). Never below 1.
	Width, Height int
	// Param names the parameter that decided the size (ParamWidth...), or
	// "" when none was set.
	Param string
	// Ignored lists the lower-priority parameters that were also set.
	Ignored []string
	// Resize is true when the output size differs from the source size.
	Resize bool
	// Upscale is true when the output is larger than the source.
	Upscale bool
	// AI is true for an upscale of a source whose short side is at least
	// MinAIShortSide: the job counts it as an AI resize (imageResizeCount);
	// every other resize is classic (classicResizeCount).
	AI bool
	// Clamped is true when the requested size broke the long-side limit and
	// was reduced.
	Clamped bool
	// Kernel is the resampling kernel for the resize.
	Kernel Kernel
	// Warnings are human-readable notes (ignored parameters, clamping).
	Warnings []string
}

// PlanSize applies the documented resize rules to a srcW x srcH source:
//
//   - only one parameter is used, by priority width > height > long > short
//     > scale; the others are listed in Plan.Ignored and a warning;
//   - the aspect ratio is kept: the other side is the exact proportional
//     value rounded half up, at least 1 pixel; scale rounds each side that
//     way on its own;
//   - an upscale may not make the long side exceed MaxLongSideGeneral
//     (auto, general) or MaxLongSideSmallDetails (smallDetails): a larger
//     request is reduced to the limit, aspect kept, with a warning. A source
//     already above the limit is left at its size by an upscale request, never
//     shrunk. The limit applies to classic upscales too, so no request can
//     allocate an unbounded image;
//   - downscales are always classic; upscales are AI when the source short
//     side is at least MinAIShortSide;
//   - the kernel comes from ChooseKernel.
//
// Range checks of the API (32 to 10000) are the caller's job; PlanSize only
// rejects negative values, an unknown mode and an empty source.
func PlanSize(srcW, srcH int, r Request) (Plan, error) {
	if srcW <= 0 || srcH <= 0 {
		return Plan{}, fmt.Errorf("resize: source size %dx%d: %w", srcW, srcH, ErrInvalidRequest)
	}
	if !r.Mode.Valid() {
		return Plan{}, fmt.Errorf("resize: unknown mode %q: %w", r.Mode, ErrInvalidRequest)
	}
	params := []struct {
		name string
		v    int
	}{{ParamWidth, r.Width}, {ParamHeight, r.Height}, {ParamLong, r.Long}, {ParamShort, r.Short}, {ParamScale, r.Scale}}
	for _, p := range params {
		if p.v < 0 {
			return Plan{}, fmt.Errorf("resize: %s %d is negative: %w", p.name, p.v, ErrInvalidRequest)
		}
	}
	plan := Plan{Width: srcW, Height: srcH, Kernel: Lanczos3}
	var v int64
	for _, p := range params {
		if p.v == 0 {
			continue
		}
		if plan.Param == "" {
			plan.Param, v = p.name, int64(min(p.v, maxRequestValue))
		} else {
			plan.Ignored = append(plan.Ignored, p.name)
		}
	}
	if plan.Param == "" {
		return plan, nil
	}
	if len(plan.Ignored) > 0 {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("resize: %s set; ignored %s (priority width > height > long > short > scale)",
			plan.Param, strings.Join(plan.Ignored, ", ")))
	}
	w, h := int64(srcW), int64(srcH)
	var tw, th int64
	switch plan.Param {
	case ParamWidth:
		tw, th = v, proportional(h, v, w)
	case ParamHeight:
		tw, th = proportional(w, v, h), v
	case ParamLong:
		tw, th = fitSide(w, h, v, w >= h)
	case ParamShort:
		tw, th = fitSide(w, h, v, w < h)
	case ParamScale:
		tw, th = max(1, roundDiv(w*v, 100)), max(1, roundDiv(h*v, 100))
	}

	limit := int64(MaxLongSideGeneral)
	if r.Mode == ModeSmallDetails {
		limit = MaxLongSideSmallDetails
	}
	if (tw > w || th > h) && max(tw, th) > limit {
		capLong := max(limit, max(w, h))
		if max(tw, th) > capLong {
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("resize: %dx%d exceeds the %d px long-side limit for resize=%s; output limited to %d px",
				tw, th, limit, modeName(r.Mode), capLong))
			tw, th = fitSide(w, h, capLong, w >= h)
			plan.Clamped = true
		}
	}
	plan.Width, plan.Height = int(tw), int(th)
	plan.Resize = plan.Width != srcW || plan.Height != srcH
	plan.Upscale = plan.Resize && (plan.Width > srcW || plan.Height > srcH)
	plan.AI = plan.Upscale && min(srcW, srcH) >= MinAIShortSide
	plan.Kernel = ChooseKernel(r.Mode, float64(max(plan.Width, plan.Height))/float64(max(srcW, srcH)))
	return plan, nil
}

func modeName(m Mode) Mode {
	if m == "" {
		return ModeAuto
	}
	return m
}

// ChooseKernel maps a mode and a scale factor (output/source long side) to
// a kernel: downscales and identity use Lanczos3 (sharpest, with the
// support widened by the factor so it low-passes); upscales use Lanczos3 for
// general, Catmull-Rom for smallDetails (less ringing around fine lines),
// and for auto Lanczos3 up to 2x and Catmull-Rom above, where Lanczos
// ringing becomes visible.
func ChooseKernel(m Mode, factor float64) Kernel {
	if factor <= 1 {
		return Lanczos3
	}
	switch m {
	case ModeGeneral:
		return Lanczos3
	case ModeSmallDetails:
		return CatmullRom
	}
	if factor <= 2 {
		return Lanczos3
	}
	return CatmullRom
}

// fitSide sets the side chosen by widthSide (true: width) to v and scales
// the other proportionally.
func fitSide(w, h, v int64, widthSide bool) (int64, int64) {
	if widthSide {
		return v, proportional(h, v, w)
	}
	return proportional(w, v, h), v
}

// proportional returns round(a*num/den), at least 1.
func proportional(a, num, den int64) int64 {
	return max(1, roundDiv(a*num, den))
}

// roundDiv divides non-negative n by positive d, rounding half up.
func roundDiv(n, d int64) int64 {
	return (2*n + d) / (2 * d)
}
