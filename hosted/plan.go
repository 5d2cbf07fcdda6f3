package hosted

import (
	"fmt"
	"slices"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// Plan is what the service will do with a set of /pfc options once its
// priority rules are applied: which resize parameter wins, which background
// mode runs, and which supplied parameters have no effect.
type Plan struct {
	// Resize is the parameter that decides the output size, by priority
	// width > height > long > short > scale; ResizeParamNone when none is set.
	Resize ResizeParam
	// ResizeValue is the value of Resize: pixels, or a percentage for scale.
	ResizeValue int
	// Background is the effective background mode, by priority
	// generative > image > color > transparent; BackgroundNone when
	// removeBackground is not set.
	Background BackgroundMode
	// Ignored lists the supplied parameters the service will ignore, in the
	// order of the API's parameter table, each with the reason.
	Ignored []IgnoredParam
}

// IgnoredParam is a supplied /pfc parameter that has no effect.
type IgnoredParam struct {
	// Name is the parameter's wire name, e.g. "bgColor".
	Name string
	// Reason says which rule makes it ineffective.
	Reason string
}

// String returns "name: reason".
func (p IgnoredParam) String() string { return p.Name + ": " + p.Reason }

// IgnoredNames returns the wire names of the ignored parameters.
func (p Plan) IgnoredNames() []string {
	names := make([]string, len(p.Ignored))
	for i, ig := range p.Ignored {
		names[i] = ig.Name
	}
	return names
}

// Plan applies the service's priority rules to o. It does not validate:
// a value out of range still counts as supplied. Rules:
//   - resize: width > height > long > short > scale; the others are
//     ignored, and resize (the mode) is ignored when no size is requested;
//   - background: generative (bgGenerativePrompt) > image (bgFileKey) >
//     solid colour (bgColor) > transparent; lower-priority bg parameters are
//     ignored, bgShadow is ignored outside the image and colour modes, and
//     every bg parameter is ignored without removeBackground. bgColor
//     "transparent" (the documented default) selects the transparent mode;
//   - skip is ignored while AI preset selection is active (preset omitted
//     or "Universal");
//   - outputQuality is ignored when the output is PNG: outputType=png, or
//     removeBackground with outputType omitted;
//   - autocropDetectOnly and the auto-crop tuning values (autocropSize,
//     autocropX, autocropY, cropARW, cropARH, autocropTopHeadGap) are
//     ignored without autocrop. The API does not state this for the tuning
//     values; it follows from their describing the auto crop.
func (o *CorrectionOptions) Plan() Plan {
	p := Plan{Background: BackgroundNone}
	if o == nil {
		return p
	}
	ignore := func(name, format string, args ...any) {
		p.Ignored = append(p.Ignored, IgnoredParam{Name: name, Reason: fmt.Sprintf(format, args...)})
	}

	param, value, ignoredSizes := o.sizes().Resolve()
	p.Resize, p.ResizeValue = ResizeParam(param), value
	for _, ig := range ignoredSizes {
		ignore(ig.Name, "%s", ig.Reason)
	}
	if o.Resize != "" && p.Resize == ResizeParamNone {
		ignore("resize", "no resize requested (set width, height, long, short or scale)")
	}

	mode, ignoredBg := o.background().Resolve()
	p.Background = BackgroundMode(mode)
	for _, ig := range ignoredBg {
		ignore(ig.Name, "%s", ig.Reason)
	}

	if o.Skip != "" && aiPresetSelection(o.Preset) {
		ignore("skip", "AI preset selection is active (preset omitted or %s)", PresetUniversal)
	}
	if o.OutputQuality != 0 {
		switch {
		case o.OutputType == OutputPNG:
			ignore("outputQuality", "output is PNG")
		case o.OutputType == "" && o.RemoveBackground:
			ignore("outputQuality", "output is PNG (removeBackground with outputType omitted)")
		}
	}
	if !o.Autocrop {
		for _, name := range o.autocropParams() {
			ignore(name, "requires autocrop=true")
		}
	}

	slices.SortStableFunc(p.Ignored, func(a, b IgnoredParam) int {
		return pfcparams.Index(a.Name) - pfcparams.Index(b.Name)
	})
	return p
}

// sizes returns the resize parameters for the shared priority rule.
func (o *CorrectionOptions) sizes() pfcparams.Sizes {
	return pfcparams.Sizes{Width: o.Width, Height: o.Height, Long: o.Long, Short: o.Short, Scale: o.Scale}
}

// background returns the background parameters for the shared priority
// rule.
func (o *CorrectionOptions) background() pfcparams.Background {
	return pfcparams.Background{Remove: o.RemoveBackground, GenerativePrompt: o.BgGenerativePrompt,
		FileKey: o.BgFileKey, Color: o.BgColor, Shadow: string(o.BgShadow)}
}

// autocropParams returns the wire names of the supplied parameters that
// only matter with autocrop=true.
func (o *CorrectionOptions) autocropParams() []string {
	var names []string
	if o.AutocropDetectOnly {
		names = append(names, "autocropDetectOnly")
	}
	for _, f := range o.autocropNumbers() {
		if f.value != "" {
			names = append(names, f.name)
		}
	}
	return names
}

type namedString struct{ name, value string }

// autocropNumbers returns the decimal-string auto-crop parameters.
func (o *CorrectionOptions) autocropNumbers() []namedString {
	return []namedString{
		{"autocropSize", o.AutocropSize},
		{"autocropX", o.AutocropX},
		{"autocropY", o.AutocropY},
		{"cropARW", o.CropARW},
		{"cropARH", o.CropARH},
		{"autocropTopHeadGap", o.AutocropTopHeadGap},
	}
}

// aiPresetSelection reports whether preset leaves the choice to the AI.
func aiPresetSelection(preset string) bool {
	return preset == "" || preset == PresetUniversal
}
