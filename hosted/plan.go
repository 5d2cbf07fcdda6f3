package hosted

import (
	"fmt"
	"slices"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Plan is what the service will do with a set of /pfc options once its
// priority rules are applied. Resize: of width, height, long, short and
// scale only the first supplied one is used. Background: generative
// (bgGenerativePrompt) > image (bgFileKey) > solid colour (bgColor) >
// transparent, all only with removeBackground; bgColor "transparent" (the
// documented default) selects the transparent mode.
type Plan struct {
	// Resize is the wire name of the parameter that decides the output
	// size ("width" ... "scale"); "" when none is set.
	Resize string
	// ResizeValue is the value of Resize: pixels, or a percentage for scale.
	ResizeValue int
	// Background is the effective background mode; BackgroundNone when
	// removeBackground is not set.
	Background BackgroundMode
	// Ignored lists the supplied parameters the service will ignore, in the
	// order of the API's parameter table, each with the reason.
	Ignored []pfc.IgnoredParam
}

// IgnoredNames returns the wire names of the ignored parameters.
func (p Plan) IgnoredNames() []string {
	names := make([]string, len(p.Ignored))
	for i, ig := range p.Ignored {
		names[i] = ig.Name
	}
	return names
}

// Plan applies the service's priority rules (see the Plan type) to o
// without validating: a value out of range still counts as supplied.
// Ignored are the lower-priority sizes, resize without a size, the
// lower-priority bg parameters, bgShadow outside the image and colour
// modes, every bg parameter without removeBackground, skip under AI preset
// selection (preset omitted or "Universal"), outputQuality when the output
// is PNG (outputType=png, or removeBackground with outputType omitted),
// and autocropDetectOnly and the auto-crop values without autocrop.
func (o *CorrectionOptions) Plan() Plan {
	p := Plan{Background: BackgroundNone}
	if o == nil {
		return p
	}
	ignore := func(name, format string, args ...any) {
		p.Ignored = append(p.Ignored, pfc.IgnoredParam{Name: name, Reason: fmt.Sprintf(format, args...)})
	}

	param, value, ignoredSizes := o.sizes().Resolve()
	p.Resize, p.ResizeValue = param, value
	for _, ig := range ignoredSizes {
		ignore(ig.Name, "%s", ig.Reason)
	}
	if o.Resize != "" && p.Resize == "" {
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
		switch out := o.outputFormat(); {
		case out == pfc.OutputPNG:
			ignore("outputQuality", "output is PNG")
		case out == "" && o.RemoveBackground:
			ignore("outputQuality", "output is PNG (removeBackground with outputType omitted)")
		}
	}
	if !o.Autocrop {
		for _, name := range binding.Supplied(o, pfcparams.GroupAutocrop) {
			ignore(name, "requires autocrop=true")
		}
	}

	slices.SortStableFunc(p.Ignored, func(a, b pfc.IgnoredParam) int {
		return binding.Index(a.Name) - binding.Index(b.Name)
	})
	return p
}

// outputFormat returns OutputType in the spelling of the pfc constants
// ("jpg" and other letter cases as OutputJPEG ...).
func (o *CorrectionOptions) outputFormat() pfc.OutputFormat {
	p, _ := pfcparams.Lookup("outputType")
	return pfc.OutputFormat(p.Canonical(string(o.OutputType)))
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

// aiPresetSelection reports whether preset leaves the choice to the AI.
func aiPresetSelection(preset string) bool {
	return preset == "" || preset == PresetUniversal
}
