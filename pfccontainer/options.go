package pfccontainer

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/go-querystring/query"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// Limits of the GET /pfc/{imageKey} parameters. The container documents
// only outputQuality's range; the sizes use the hosted API's documented
// range (the mock enforces the same), and scale is a positive percentage up
// to MaxScale.
const (
	MinOutputQuality = 40
	MaxOutputQuality = 100
	MinSize          = 32                 // smallest width, height, long or short
	MaxSize          = 10000              // largest width, height, long or short
	MaxScale         = pfcparams.MaxScale // largest scale percentage: 1000
	// MaxImageKeyLength bounds an image key (a file name in direct file
	// mode).
	MaxImageKeyLength = 255
)

// OutputType is the outputType parameter.
type OutputType string

// Output types. The container also accepts "jpg" and any letter case.
const (
	OutputJPEG OutputType = "JPEG"
	OutputPNG  OutputType = "PNG"
)

// Valid reports whether t is empty or an output type the container knows.
func (t OutputType) Valid() bool {
	switch strings.ToLower(string(t)) {
	case "", "jpeg", "jpg", "png":
		return true
	}
	return false
}

func (t OutputType) isPNG() bool { return strings.EqualFold(string(t), "png") }

// SkipMode is the skip parameter (and PFC_SKIP_MODE).
type SkipMode string

// Skip modes.
const (
	SkipClipart SkipMode = "clipart" // leave clipart-like images uncorrected (default)
	SkipLegacy  SkipMode = "legacy"
	SkipNone    SkipMode = "none" // correct everything
)

// Valid reports whether m is empty or a documented mode.
func (m SkipMode) Valid() bool {
	return m == "" || m == SkipClipart || m == SkipLegacy || m == SkipNone
}

// Colour spaces of outputColorSpace; any other value names an ICC profile
// file mounted in /presets.
const (
	ColorSpaceOriginal = "original"
	ColorSpaceSRGB     = "srgb"
)

// CorrectionOptions are the query parameters of GET /pfc/{imageKey}. The
// zero value asks for AI scene detection with the container's defaults
// (and its PFC_* settings); zero fields are not sent. Fill the struct
// directly or start from NewCorrection and chain setters; each setter
// changes o and returns the same pointer.
//
// Validate checks the options locally, Plan shows which resize parameter
// applies and what the container ignores, and Query encodes them.
type CorrectionOptions struct {
	// Preset is the name of a preset mounted in /presets (a file, or an
	// exported AI preset group). Empty means AI scene detection picks a
	// preset per image.
	Preset string `url:"preset,omitempty"`
	// OutputType is OutputJPEG or OutputPNG; empty keeps the source
	// format.
	OutputType OutputType `url:"outputType,omitempty"`
	// OutputQuality is the JPEG quality, 40..100; 0 means the default, 90.
	OutputQuality int `url:"outputQuality,omitempty"`
	// OutputColorSpace is ColorSpaceOriginal, ColorSpaceSRGB or the file
	// name of an ICC profile in /presets; empty means original.
	OutputColorSpace string `url:"outputColorSpace,omitempty"`

	// Width, Height, Long and Short are target sizes in pixels (MinSize..
	// MaxSize); Scale is a percentage (1..MaxScale, 50 halves). Use one:
	// when several are set the container uses only the first in this order
	// (see Plan).
	Width  int `url:"width,omitempty"`
	Height int `url:"height,omitempty"`
	Long   int `url:"long,omitempty"`
	Short  int `url:"short,omitempty"`
	Scale  int `url:"scale,omitempty"`

	// Autocrop enables auto cropping with the container's crop settings.
	Autocrop bool `url:"autocrop,omitempty"`
	// Skip is the non-photo skip mode; empty means PFC_SKIP_MODE. Ignored
	// under AI preset selection (Preset empty).
	Skip SkipMode `url:"skip,omitempty"`
	// SkipEXIFSoftware leaves images edited by the named software
	// uncorrected (sent comma-separated as skip-exif-software); nil means
	// PFC_SKIP_EXIF_SOFTWARE.
	SkipEXIFSoftware []string `url:"skip-exif-software,comma,omitempty"`
	// PreserveInputFileName names the output after the input inside the
	// container (direct file mode); nil means PFC_PRESERVE_INPUT_FILENAME.
	PreserveInputFileName *bool `url:"preserveInputFileName,omitempty"`
	// EnableComposite is composite photo extraction; nil means the
	// container's default (PFC_ENABLE_COMPOSITE, true).
	EnableComposite *bool `url:"enableComposite,omitempty"`

	// Strict makes Validate report every parameter the container would
	// ignore (see Plan) as an error. It is never sent.
	Strict bool `url:"-"`
}

// NewCorrection returns options with the container's defaults: AI scene
// detection, source format, no resize.
func NewCorrection() *CorrectionOptions { return &CorrectionOptions{} }

// WithPreset sets the preset: a name mounted in /presets. It changes o
// and returns it.
func (o *CorrectionOptions) WithPreset(name string) *CorrectionOptions {
	o.Preset = name
	return o
}

// WithOutput sets the output format and the JPEG quality (0 keeps the
// default, 90). It changes o and returns it.
func (o *CorrectionOptions) WithOutput(t OutputType, quality int) *CorrectionOptions {
	o.OutputType, o.OutputQuality = t, quality
	return o
}

// WithColorSpace sets outputColorSpace: ColorSpaceOriginal,
// ColorSpaceSRGB, or an ICC profile file name in /presets. It changes o
// and returns it.
func (o *CorrectionOptions) WithColorSpace(cs string) *CorrectionOptions {
	o.OutputColorSpace = cs
	return o
}

func (o *CorrectionOptions) setSize(target *int, v int) *CorrectionOptions {
	o.Width, o.Height, o.Long, o.Short, o.Scale = 0, 0, 0, 0, 0
	*target = v
	return o
}

// ResizeWidth resizes to px pixels wide, keeping the aspect ratio. Like
// every Resize* setter it clears the other size parameters, changes o and
// returns it.
func (o *CorrectionOptions) ResizeWidth(px int) *CorrectionOptions { return o.setSize(&o.Width, px) }

// ResizeHeight resizes to px pixels high, keeping the aspect ratio.
func (o *CorrectionOptions) ResizeHeight(px int) *CorrectionOptions {
	return o.setSize(&o.Height, px)
}

// ResizeLong resizes so that the long edge is px pixels.
func (o *CorrectionOptions) ResizeLong(px int) *CorrectionOptions { return o.setSize(&o.Long, px) }

// ResizeShort resizes so that the short edge is px pixels.
func (o *CorrectionOptions) ResizeShort(px int) *CorrectionOptions { return o.setSize(&o.Short, px) }

// ResizeScale scales both edges by percent (50 halves them).
func (o *CorrectionOptions) ResizeScale(percent int) *CorrectionOptions {
	return o.setSize(&o.Scale, percent)
}

// WithAutocrop enables auto cropping. It changes o and returns it.
func (o *CorrectionOptions) WithAutocrop() *CorrectionOptions {
	o.Autocrop = true
	return o
}

// WithSkip sets the skip mode. It changes o and returns it.
func (o *CorrectionOptions) WithSkip(m SkipMode) *CorrectionOptions {
	o.Skip = m
	return o
}

// SkippingEXIFSoftware leaves images edited by any of names uncorrected;
// with no names it sends an empty list, turning PFC_SKIP_EXIF_SOFTWARE off
// for this call. It changes o and returns it.
func (o *CorrectionOptions) SkippingEXIFSoftware(names ...string) *CorrectionOptions {
	o.SkipEXIFSoftware = append([]string{}, names...)
	return o
}

// PreservingInputFileName sets preserveInputFileName explicitly. It
// changes o and returns it.
func (o *CorrectionOptions) PreservingInputFileName(preserve bool) *CorrectionOptions {
	o.PreserveInputFileName = &preserve
	return o
}

// WithComposite sets enableComposite explicitly. It changes o and returns
// it.
func (o *CorrectionOptions) WithComposite(enabled bool) *CorrectionOptions {
	o.EnableComposite = &enabled
	return o
}

// Strictly turns on Strict: parameters the container would ignore fail
// validation. It changes o and returns it.
func (o *CorrectionOptions) Strictly() *CorrectionOptions {
	o.Strict = true
	return o
}

// Validate checks o against the container's documented rules without any
// I/O. It returns nil or a *pfc.ValidationError (matching pfc.ErrInvalidParameter)
// naming every offending parameter by its wire name:
//   - outputType is JPEG, jpg or PNG (any case);
//   - outputQuality is 40..100, width/height/long/short MinSize..MaxSize,
//     scale 1..MaxScale (zero means unset);
//   - outputColorSpace is original, srgb or a plain file name;
//   - skip is clipart, legacy or none;
//   - skip-exif-software names are non-empty and hold no comma;
//   - preset is a plain name (no control characters);
//   - with Strict, every parameter listed in Plan().Ignored is an error.
//
// A nil o is valid: the container's defaults.
func (o *CorrectionOptions) Validate() error {
	if o == nil {
		return nil
	}
	var fe fieldErrors
	if o.Preset != "" && !printable(o.Preset) {
		fe.add("preset", "must be printable text (a preset name)")
	}
	if !o.OutputType.Valid() {
		fe.add("outputType", "must be JPEG (or jpg) or PNG, got %q", o.OutputType)
	}
	if o.OutputQuality != 0 && (o.OutputQuality < MinOutputQuality || o.OutputQuality > MaxOutputQuality) {
		fe.add("outputQuality", "must be between %d and %d, got %d", MinOutputQuality, MaxOutputQuality, o.OutputQuality)
	}
	if cs := o.OutputColorSpace; cs != "" && !strings.EqualFold(cs, ColorSpaceOriginal) &&
		!strings.EqualFold(cs, ColorSpaceSRGB) && !plainFileName(cs) {
		fe.add("outputColorSpace", "must be original, srgb or the file name of an ICC profile in /presets, got %q", cs)
	}
	for _, s := range []struct {
		name  string
		value int
	}{{"width", o.Width}, {"height", o.Height}, {"long", o.Long}, {"short", o.Short}} {
		if s.value != 0 && (s.value < MinSize || s.value > MaxSize) {
			fe.add(s.name, "must be between %d and %d pixels, got %d", MinSize, MaxSize, s.value)
		}
	}
	if o.Scale != 0 && (o.Scale < 1 || o.Scale > MaxScale) {
		fe.add("scale", "must be a percentage between 1 and %d, got %d", MaxScale, o.Scale)
	}
	if !o.Skip.Valid() {
		fe.add("skip", "must be one of clipart, legacy, none, got %q", o.Skip)
	}
	for _, n := range o.SkipEXIFSoftware {
		if strings.TrimSpace(n) == "" || strings.Contains(n, ",") {
			fe.add("skip-exif-software", "software names must be non-empty and contain no comma, got %q", n)
			break
		}
	}
	if o.Strict {
		for _, ig := range o.Plan().Ignored {
			if !fe.has(ig.Name) {
				fe.add(ig.Name, "would be ignored (strict mode): %s", ig.Reason)
			}
		}
	}
	sortByTable(fe)
	return fe.err()
}

// Values validates o and returns its query parameters; unset fields are
// absent. A nil o gives empty values.
func (o *CorrectionOptions) Values() (url.Values, error) {
	if o == nil {
		return url.Values{}, nil
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	v, err := query.Values(o)
	if err != nil {
		return nil, fmt.Errorf("pfc: encode options: %w", err)
	}
	if o.SkipEXIFSoftware != nil && len(o.SkipEXIFSoftware) == 0 {
		v.Set("skip-exif-software", "")
	}
	return v, nil
}

// Query validates o and returns the encoded query string for GET
// /pfc/{imageKey}: keys sorted, spaces as %20, so the same options always
// give the same bytes.
func (o *CorrectionOptions) Query() (string, error) {
	v, err := o.Values()
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(v.Encode(), "+", "%20"), nil
}

// ParameterNames returns the wire names of the GET /pfc/{imageKey}
// parameters in the order of the container's table.
func ParameterNames() []string {
	return []string{"preset", "outputType", "outputQuality", "outputColorSpace",
		"width", "height", "long", "short", "scale",
		"autocrop", "skip", "skip-exif-software", "preserveInputFileName", "enableComposite"}
}

// ValidateImageKey checks key against the container's sanity rule (what
// the container answers with invalidIdMessage or noIdMessage): a plain
// file name of at most MaxImageKeyLength bytes, valid UTF-8, without path
// separators, "..", control characters or a leading dot. It returns nil or
// a *pfc.ValidationError naming "imageKey".
func ValidateImageKey(key string) error {
	var fe fieldErrors
	switch {
	case key == "":
		fe.add("imageKey", "is required")
	case len(key) > MaxImageKeyLength:
		fe.add("imageKey", "must be at most %d bytes, got %d", MaxImageKeyLength, len(key))
	case !plainFileName(key):
		fe.add("imageKey", "must be a plain file name (no path separators, \"..\", control characters or leading dot)")
	}
	return fe.err()
}

// plainFileName is the container's sanity rule for keys and file names.
func plainFileName(s string) bool {
	if s == "" || len(s) > MaxImageKeyLength || strings.HasPrefix(s, ".") || strings.Contains(s, "..") ||
		strings.ContainsAny(s, `/\:`) {
		return false
	}
	return printable(s)
}

// printable reports valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
