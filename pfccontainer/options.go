package pfccontainer

import (
	"net/url"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// maxImageKeyLength bounds an image key (a file name in direct file mode):
// 255 bytes, the longest file name of common file systems.
const maxImageKeyLength = pfcparams.MaxNameLength

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
	// OutputType is pfc.OutputJPEG or pfc.OutputPNG (sent as JPEG or PNG);
	// empty or pfc.OutputOriginal keeps the source format.
	OutputType pfc.OutputFormat `url:"outputType,omitempty"`
	// OutputQuality is the JPEG quality, 40..100; 0 means the default, 90.
	OutputQuality int `url:"outputQuality,omitempty"`
	// OutputColorSpace is ColorSpaceOriginal, ColorSpaceSRGB or the file
	// name of an ICC profile in /presets; empty means original.
	OutputColorSpace string `url:"outputColorSpace,omitempty"`

	// Width, Height, Long and Short are target sizes in pixels (32..10000);
	// Scale is a percentage (1..62500, 50 halves). Use one:
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
	Skip pfc.SkipMode `url:"skip,omitempty"`
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
func (o *CorrectionOptions) WithOutput(t pfc.OutputFormat, quality int) *CorrectionOptions {
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

// WithWidth resizes to px pixels wide, keeping the aspect ratio. Like
// WithHeight, WithLong, WithShort and WithScale, it clears the other size
// parameters, changes o and returns it.
func (o *CorrectionOptions) WithWidth(px int) *CorrectionOptions { return o.setSize(&o.Width, px) }

// WithHeight resizes to px pixels high, keeping the aspect ratio.
func (o *CorrectionOptions) WithHeight(px int) *CorrectionOptions {
	return o.setSize(&o.Height, px)
}

// WithLong resizes so that the long edge is px pixels.
func (o *CorrectionOptions) WithLong(px int) *CorrectionOptions { return o.setSize(&o.Long, px) }

// WithShort resizes so that the short edge is px pixels.
func (o *CorrectionOptions) WithShort(px int) *CorrectionOptions { return o.setSize(&o.Short, px) }

// WithScale scales both edges by percent (50 halves them).
func (o *CorrectionOptions) WithScale(percent int) *CorrectionOptions {
	return o.setSize(&o.Scale, percent)
}

// WithAutocrop enables auto cropping with the container's crop settings,
// as hosted's WithAutocrop does with the service's. It changes o and
// returns it.
func (o *CorrectionOptions) WithAutocrop() *CorrectionOptions {
	o.Autocrop = true
	return o
}

// WithSkip sets the skip mode. It changes o and returns it.
func (o *CorrectionOptions) WithSkip(m pfc.SkipMode) *CorrectionOptions {
	o.Skip = m
	return o
}

// WithSkipEXIFSoftware leaves images edited by any of names uncorrected;
// with no names it sends an empty list, turning PFC_SKIP_EXIF_SOFTWARE off
// for this call. It changes o and returns it.
func (o *CorrectionOptions) WithSkipEXIFSoftware(names ...string) *CorrectionOptions {
	o.SkipEXIFSoftware = append([]string{}, names...)
	return o
}

// WithPreserveInputFileName sets preserveInputFileName explicitly. It
// changes o and returns it.
func (o *CorrectionOptions) WithPreserveInputFileName(preserve bool) *CorrectionOptions {
	o.PreserveInputFileName = &preserve
	return o
}

// WithComposite sets enableComposite explicitly. It changes o and returns
// it.
func (o *CorrectionOptions) WithComposite(enabled bool) *CorrectionOptions {
	o.EnableComposite = &enabled
	return o
}

// WithStrict turns on Strict: parameters the container would ignore fail
// validation. It changes o and returns it.
func (o *CorrectionOptions) WithStrict() *CorrectionOptions {
	o.Strict = true
	return o
}

// Validate checks o against the container's documented rules without any
// I/O. It returns nil or a *pfc.ValidationError (matching pfc.ErrInvalidParameter)
// naming every offending parameter by its wire name: values outside their
// set or range (outputQuality 40..100; sizes 32..10000 and scale 1..62500,
// which the API documentation leaves open, as in hosted), an outputColorSpace that is neither original, srgb nor a plain
// file name, empty or comma-holding skip-exif-software names, a preset
// with control characters, and, with Strict, every parameter Plan reports
// as ignored. A nil o is valid: the container's defaults.
func (o *CorrectionOptions) Validate() error {
	if o == nil {
		return nil
	}
	var fe fieldErrors
	for _, p := range binding.Check(o, true) {
		fe.add(p.Name, "%s", p.Message)
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

// binding ties CorrectionOptions to the declaration table of the
// correction parameters, from which validation and encoding derive.
var binding = pfcparams.MustBind(pfcparams.Container, CorrectionOptions{})

// Values validates o and returns its query parameters; unset fields are
// absent. A nil o gives empty values.
func (o *CorrectionOptions) Values() (url.Values, error) {
	v := url.Values{}
	if o == nil {
		return v, nil
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	binding.Encode(o, v)
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

// parameterNames returns the wire names of the GET /pfc/{imageKey}
// parameters, in the order of the SDK's declaration table.
func parameterNames() []string { return binding.Names() }

// ValidateImageKey checks key against the container's sanity rule (what
// the container answers with invalidIdMessage or noIdMessage): a plain
// file name of at most 255 bytes, valid UTF-8, without path
// separators, "..", control characters or a leading dot. It returns nil or
// a *pfc.ValidationError naming "imageKey".
func ValidateImageKey(key string) error {
	var fe fieldErrors
	switch {
	case key == "":
		fe.add("imageKey", "is required")
	case len(key) > maxImageKeyLength:
		fe.add("imageKey", "must be at most %d bytes, got %d", maxImageKeyLength, len(key))
	case !plainFileName(key):
		fe.add("imageKey", "must be a plain file name (no path separators, \"..\", control characters or leading dot)")
	}
	return fe.err()
}

// plainFileName is the container's sanity rule for keys and file names.
func plainFileName(s string) bool { return pfcparams.PlainFileName(s) }
