package pfcdoc

import "slices"

// Kind is the documented type of a parameter.
type Kind string

// The parameter types of the documentation's tables.
const (
	KindString  Kind = "string"
	KindInteger Kind = "integer"
	KindBoolean Kind = "boolean"
	KindEnum    Kind = "enum"
	// KindList is a comma-separated list of strings (the container's
	// skip-exif-software).
	KindList Kind = "list"
)

// Range is an inclusive integer range.
type Range struct {
	// Min and Max are the smallest and largest allowed values.
	Min, Max int
}

// Contains reports whether v is in the range.
func (r Range) Contains(v int) bool { return v >= r.Min && v <= r.Max }

// Param is one documented query parameter.
type Param struct {
	// Name is the wire name.
	Name string
	// Kind is the documented type.
	Kind Kind
	// Required is true for parameters the service cannot do without.
	Required bool
	// Default is the service's default as a wire value; "" when there is
	// none or it is a behaviour rather than a value (preset: AI selection).
	Default string
	// Values lists the allowed values of a closed set (enums, booleans);
	// nil when any value of Kind is allowed.
	Values []string
	// Range bounds an integer; nil when unbounded.
	Range *Range
}

// Bounds returns the range an integer parameter is held to: Range, or
// 1..MaxScale where the documentation gives none (scale, "integer
// percent"). ok is false for other kinds.
func (p Param) Bounds() (r Range, ok bool) {
	switch {
	case p.Kind != KindInteger:
		return Range{}, false
	case p.Range != nil:
		return *p.Range, true
	}
	return Range{Min: 1, Max: MaxScale}, true
}

// Limits of the hosted API's /pfc parameters (and the correction
// container's outputQuality).
const (
	MinSize          = 32    // smallest width, height, long or short
	MaxSize          = 10000 // largest width, height, long or short
	MinOutputQuality = 40
	MaxOutputQuality = 100
	DefaultQuality   = 90
	// MaxScale is the largest scale percentage. Neither API documents a
	// bound ("integer percent"); the SDK's clients and mocks of both share
	// this one, so that what a client accepts a mock accepts. At 62,500 %
	// the smallest accepted input (32 px) reaches the largest output of
	// the AI upscaling (20,000 px), which clamps every larger value to the
	// same result; the bound only keeps the arithmetic small.
	MaxScale = 62500
)

var (
	boolValues   = []string{"true", "false"}
	sizeRange    = &Range{Min: MinSize, Max: MaxSize}
	qualityRange = &Range{Min: MinOutputQuality, Max: MaxOutputQuality}
)

// resizeParams are the resize parameters as both APIs list them, in the
// priority order: the hosted API documents the sizes' range, the
// container's mock takes the same; scale has none ("integer percent").
var resizeParams = []Param{
	{Name: "width", Kind: KindInteger, Range: sizeRange},
	{Name: "height", Kind: KindInteger, Range: sizeRange},
	{Name: "long", Kind: KindInteger, Range: sizeRange},
	{Name: "short", Kind: KindInteger, Range: sizeRange},
	{Name: "scale", Kind: KindInteger},
}

// Hosted is the GET /pfc parameter table of the hosted API v2, in the
// documentation's order. Callers must not modify it; use HostedNames for a
// copy of the names.
var Hosted = slices.Concat([]Param{
	{Name: "fileKey", Kind: KindString, Required: true},
	{Name: "fileType", Kind: KindString, Default: "image", Values: []string{"image", "video"}},
	{Name: "preset", Kind: KindString},
	{Name: "cache", Kind: KindBoolean, Default: "true", Values: boolValues},
	{Name: "outputType", Kind: KindString, Default: "original", Values: []string{"jpg", "png", "original"}},
	{Name: "resize", Kind: KindString, Default: "auto", Values: []string{"auto", "general", "smallDetails"}},
}, resizeParams, []Param{
	{Name: "outputQuality", Kind: KindInteger, Default: "90", Range: qualityRange},
	{Name: "autocrop", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "autocropDetectOnly", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "autocropSize", Kind: KindString},
	{Name: "autocropX", Kind: KindString},
	{Name: "autocropY", Kind: KindString},
	{Name: "cropARW", Kind: KindString},
	{Name: "cropARH", Kind: KindString},
	{Name: "autocropTopHeadGap", Kind: KindString},
	{Name: "skip", Kind: KindString, Default: "clipart", Values: []string{"clipart", "legacy", "none"}},
	{Name: "removeGlares", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "removeBackground", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "bgColor", Kind: KindString, Default: ColorTransparent},
	{Name: "bgGenerativePrompt", Kind: KindString},
	{Name: "bgFileKey", Kind: KindString},
	{Name: "bgShadow", Kind: KindEnum, Values: []string{"soft", "hard", "floating"}},
	{Name: "preserveMetadata", Kind: KindBoolean, Default: "true", Values: boolValues},
	{Name: "updateThumbnail", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "includeDetectionData", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "webhookUrl", Kind: KindString},
})

// Container is the GET /pfc/{imageKey} parameter table of the correction
// container, in the documentation's order. The documentation gives no
// range for the sizes: the container's mock takes the hosted API's, so
// that both mocks agree. Defaults are those of a container started
// without PFC_* settings (PFC_SKIP_MODE's clipart for skip); none for
// preserveInputFileName, whose default is PFC_PRESERVE_INPUT_FILENAME.
// The mock also takes outputType in any case and as jpg. Callers must not
// modify it.
var Container = slices.Concat([]Param{
	{Name: "preset", Kind: KindString},
	{Name: "outputType", Kind: KindString, Values: []string{"JPEG", "PNG"}},
	{Name: "outputQuality", Kind: KindInteger, Default: "90", Range: qualityRange},
	{Name: "outputColorSpace", Kind: KindString, Default: "original"},
}, resizeParams, []Param{
	{Name: "autocrop", Kind: KindBoolean, Default: "false", Values: boolValues},
	{Name: "skip", Kind: KindString, Default: "clipart", Values: []string{"clipart", "legacy", "none"}},
	{Name: "skip-exif-software", Kind: KindList},
	{Name: "preserveInputFileName", Kind: KindBoolean, Values: boolValues},
	{Name: "enableComposite", Kind: KindBoolean, Default: "true", Values: boolValues},
})

// Names returns the wire names of table, in table order.
func Names(table []Param) []string {
	names := make([]string, len(table))
	for i, p := range table {
		names[i] = p.Name
	}
	return names
}

// Lookup returns the entry of table named name.
func Lookup(table []Param, name string) (Param, bool) {
	for _, p := range table {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// HostedNames returns the wire names of Hosted, in table order.
func HostedNames() []string { return Names(Hosted) }

// HostedParam returns the Hosted entry named name.
func HostedParam(name string) (Param, bool) { return Lookup(Hosted, name) }

// Index returns the position of name in the hosted table, or len(Hosted)
// for a name outside it (so that sorting puts unknown names last).
func Index(name string) int {
	for i, p := range Hosted {
		if p.Name == name {
			return i
		}
	}
	return len(Hosted)
}
