package pfccontainer

import (
	"fmt"
	"slices"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Plan is what the container will do with a set of options once its
// rules are applied: which resize parameter wins, whether AI scene
// detection picks the preset, and which supplied parameters have no effect.
type Plan struct {
	// Resize is the wire name of the parameter that decides the output
	// size, by priority width > height > long > short > scale; "" when none
	// is set.
	Resize string
	// ResizeValue is the value of Resize: pixels, or a percentage for scale.
	ResizeValue int
	// AIPresetSelection is true when no preset is given: AI scene
	// detection selects the preset per image.
	AIPresetSelection bool
	// Ignored lists the supplied parameters the container will ignore, in
	// the order of its parameter table, each with the reason.
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

// Plan applies the container's rules to o. It does not validate: a value
// out of range still counts as supplied. Rules:
//   - resize: only one of width, height, long, short, scale is used, in
//     that order of priority; the others are ignored;
//   - skip is ignored when AI preset selection is used (preset omitted);
//   - outputQuality is ignored when the output is PNG.
//
// A nil o gives the plan of the defaults.
func (o *CorrectionOptions) Plan() Plan {
	p := Plan{AIPresetSelection: true}
	if o == nil {
		return p
	}
	p.AIPresetSelection = o.Preset == ""
	ignore := func(name, format string, args ...any) {
		p.Ignored = append(p.Ignored, pfc.IgnoredParam{Name: name, Reason: fmt.Sprintf(format, args...)})
	}
	param, value, ignored := pfcparams.Sizes{Width: o.Width, Height: o.Height, Long: o.Long, Short: o.Short, Scale: o.Scale}.Resolve()
	p.Resize, p.ResizeValue = param, value
	for _, ig := range ignored {
		ignore(ig.Name, "%s", ig.Reason)
	}
	if o.Skip != "" && p.AIPresetSelection {
		ignore("skip", "AI preset selection is used (no preset given)")
	}
	if o.OutputQuality != 0 && o.outputFormat() == pfc.OutputPNG {
		ignore("outputQuality", "output is PNG")
	}
	slices.SortStableFunc(p.Ignored, func(a, b pfc.IgnoredParam) int { return binding.Index(a.Name) - binding.Index(b.Name) })
	return p
}

// outputFormat returns OutputType in the spelling of the pfc constants
// ("JPEG" and "jpg" as pfc.OutputJPEG ...).
func (o *CorrectionOptions) outputFormat() pfc.OutputFormat {
	p, _ := pfcparams.Lookup("outputType")
	return pfc.OutputFormat(p.Canonical(string(o.OutputType)))
}

// sortByTable orders problems by the container's parameter table.
func sortByTable(fe fieldErrors) {
	slices.SortStableFunc(fe, func(a, b pfc.FieldError) int { return binding.Index(a.Field) - binding.Index(b.Field) })
}
