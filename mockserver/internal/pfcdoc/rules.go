package pfcdoc

import (
	"fmt"
	"strings"
)

// Ignored is a supplied parameter that the service will not use.
type Ignored struct {
	// Name is the wire name.
	Name string
	// Reason says why it is ignored.
	Reason string
}

// The resize parameters, highest priority first.
const (
	Width  = "width"
	Height = "height"
	Long   = "long"
	Short  = "short"
	Scale  = "scale"
)

// ResizePriority lists the resize parameters, highest priority first.
var ResizePriority = []string{Width, Height, Long, Short, Scale}

// Sizes are the resize parameters of one request; 0 means not supplied.
type Sizes struct {
	Width, Height, Long, Short, Scale int
}

// Resolve applies the resize priority width > height > long > short >
// scale: it returns the parameter used and its value ("" and 0 when none is
// supplied) and the other supplied ones, which the service ignores. A
// non-zero value counts as supplied whatever its range.
func (s Sizes) Resolve() (param string, value int, ignored []Ignored) {
	for i, v := range []int{s.Width, s.Height, s.Long, s.Short, s.Scale} {
		switch {
		case v == 0:
		case param == "":
			param, value = ResizePriority[i], v
		default:
			ignored = append(ignored, Ignored{Name: ResizePriority[i],
				Reason: fmt.Sprintf("%s takes priority (use one resize parameter per request)", param)})
		}
	}
	return param, value, ignored
}

// ColorTransparent is the bgColor value documented as its default; it
// selects the transparent mode.
const ColorTransparent = "transparent"

// The background modes, in priority order after ModeNone (background kept).
const (
	ModeNone        = "none"
	ModeGenerative  = "generative"
	ModeImage       = "image"
	ModeColor       = "color"
	ModeTransparent = "transparent"
)

// Background holds the background parameters of one hosted /pfc request.
type Background struct {
	// Remove is removeBackground.
	Remove bool
	// GenerativePrompt, FileKey, Color and Shadow are bgGenerativePrompt,
	// bgFileKey, bgColor and bgShadow ("" when not supplied).
	GenerativePrompt, FileKey, Color, Shadow string
}

// Mode returns the effective background mode: ModeNone without Remove,
// else generative > image > color > transparent. A Color of
// "transparent" (any case) selects the transparent mode.
func (b Background) Mode() string {
	switch {
	case !b.Remove:
		return ModeNone
	case b.GenerativePrompt != "":
		return ModeGenerative
	case b.FileKey != "":
		return ModeImage
	case b.Color != "" && !strings.EqualFold(b.Color, ColorTransparent):
		return ModeColor
	}
	return ModeTransparent
}

// ShadowAllowed reports whether bgShadow has an effect in mode: only the
// image and solid-colour modes take it.
func ShadowAllowed(mode string) bool { return mode == ModeImage || mode == ModeColor }

// Resolve returns the effective mode and the supplied background
// parameters the service ignores: every one without removeBackground;
// those of lower priority than the mode's; bgShadow outside the image and
// colour modes. The order is the parameter table's.
func (b Background) Resolve() (mode string, ignored []Ignored) {
	mode = b.Mode()
	ignore := func(name, format string, args ...any) {
		ignored = append(ignored, Ignored{Name: name, Reason: fmt.Sprintf(format, args...)})
	}
	switch mode {
	case ModeNone:
		for _, p := range b.Supplied() {
			ignore(p, "requires removeBackground=true")
		}
		return mode, ignored
	case ModeGenerative:
		if b.Color != "" {
			ignore("bgColor", "bgGenerativePrompt takes priority")
		}
		if b.FileKey != "" {
			ignore("bgFileKey", "bgGenerativePrompt takes priority")
		}
	case ModeImage:
		if b.Color != "" {
			ignore("bgColor", "bgFileKey takes priority")
		}
	}
	if b.Shadow != "" && !ShadowAllowed(mode) {
		ignore("bgShadow", "shadows are available only in the image and solid color background modes, not %s", mode)
	}
	return mode, ignored
}

// Supplied returns the wire names of the supplied bg* parameters in table
// order (those Validate requires removeBackground for).
func (b Background) Supplied() []string {
	var names []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"bgColor", b.Color != ""},
		{"bgGenerativePrompt", b.GenerativePrompt != ""},
		{"bgFileKey", b.FileKey != ""},
		{"bgShadow", b.Shadow != ""},
	} {
		if f.set {
			names = append(names, f.name)
		}
	}
	return names
}
