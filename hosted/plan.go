package hosted

import (
	"fmt"
	"slices"
	"strings"
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
	Name   string // wire name, e.g. "bgColor"
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

// paramOrder is the order of the GET /pfc parameter table; Plan.Ignored
// follows it so that output does not depend on rule order.
var paramOrder = ParameterNames()

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

	sizes := []struct {
		param ResizeParam
		value int
	}{
		{ResizeParamWidth, o.Width},
		{ResizeParamHeight, o.Height},
		{ResizeParamLong, o.Long},
		{ResizeParamShort, o.Short},
		{ResizeParamScale, o.Scale},
	}
	for _, s := range sizes {
		switch {
		case s.value == 0:
		case p.Resize == ResizeParamNone:
			p.Resize, p.ResizeValue = s.param, s.value
		default:
			ignore(string(s.param), "%s takes priority (use one resize parameter per request)", p.Resize)
		}
	}
	if o.Resize != "" && p.Resize == ResizeParamNone {
		ignore("resize", "no resize requested (set width, height, long, short or scale)")
	}

	p.Background = o.backgroundMode()
	switch p.Background {
	case BackgroundNone:
		for _, bg := range o.bgParams() {
			ignore(bg, "requires removeBackground=true")
		}
	case BackgroundGenerative:
		if o.BgFileKey != "" {
			ignore("bgFileKey", "bgGenerativePrompt takes priority")
		}
		if o.BgColor != "" {
			ignore("bgColor", "bgGenerativePrompt takes priority")
		}
	case BackgroundImage:
		if o.BgColor != "" {
			ignore("bgColor", "bgFileKey takes priority")
		}
	}
	if o.BgShadow != "" && p.Background != BackgroundNone && !shadowAllowed(p.Background) {
		ignore("bgShadow", "shadows are available only in the image and solid color background modes, not %s", p.Background)
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
		return slices.Index(paramOrder, a.Name) - slices.Index(paramOrder, b.Name)
	})
	return p
}

// backgroundMode is the effective background mode by the service's
// priority rules.
func (o *CorrectionOptions) backgroundMode() BackgroundMode {
	switch {
	case !o.RemoveBackground:
		return BackgroundNone
	case o.BgGenerativePrompt != "":
		return BackgroundGenerative
	case o.BgFileKey != "":
		return BackgroundImage
	case o.BgColor != "" && !strings.EqualFold(o.BgColor, ColorTransparent):
		return BackgroundColor
	}
	return BackgroundTransparent
}

// bgParams returns the wire names of the supplied bg* parameters.
func (o *CorrectionOptions) bgParams() []string {
	var names []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"bgColor", o.BgColor != ""},
		{"bgGenerativePrompt", o.BgGenerativePrompt != ""},
		{"bgFileKey", o.BgFileKey != ""},
		{"bgShadow", o.BgShadow != ""},
	} {
		if f.set {
			names = append(names, f.name)
		}
	}
	return names
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

func shadowAllowed(m BackgroundMode) bool {
	return m == BackgroundImage || m == BackgroundColor
}

// aiPresetSelection reports whether preset leaves the choice to the AI.
func aiPresetSelection(preset string) bool {
	return preset == "" || preset == PresetUniversal
}
