package hosted

import (
	"net/url"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CorrectionOptions are the query parameters of GET /pfc, which starts a
// correction job. Fill the struct directly or start from NewCorrection and
// chain setters. Zero values are not sent, so the service default applies;
// Cache and PreserveMetadata default to true and are pointers so that an
// explicit false is sent.
//
// The setters (With*) modify the options they are called on and return
// that same pointer; derive variants with Clone.
// Validate checks the options locally, Plan shows how the service's
// priority rules resolve them, and Query encodes them.
type CorrectionOptions struct {
	// FileKey is the key returned by GET /upload. Required.
	FileKey string `url:"fileKey,omitempty"`
	// FileType must match the uploaded file; empty means image.
	FileType FileType `url:"fileType,omitempty"`
	// Preset is a built-in group (PresetPro, ...), a custom preset name,
	// or PresetNone to skip correction. Empty or PresetUniversal means AI
	// preset selection.
	Preset string `url:"preset,omitempty"`
	// Cache reuses an earlier result for identical settings; nil means
	// the service default, true.
	Cache *bool `url:"cache,omitempty"`
	// OutputType is the output format; empty means original, or PNG when
	// RemoveBackground is set.
	OutputType pfc.OutputFormat `url:"outputType,omitempty"`
	// Resize is the upscaling mode, used only when a size is requested.
	Resize ResizeMode `url:"resize,omitempty"`

	// Width, Height, Long and Short are target sizes in pixels
	// (32..10000); Scale is a percentage (1..62500). Use one: when several
	// are set the service uses only the first, in this order.
	Width  int `url:"width,omitempty"`
	Height int `url:"height,omitempty"`
	Long   int `url:"long,omitempty"`
	Short  int `url:"short,omitempty"`
	Scale  int `url:"scale,omitempty"`

	// OutputQuality is the JPEG quality, 40..100; 0 means the default, 90.
	OutputQuality int `url:"outputQuality,omitempty"`

	// Autocrop enables auto cropping of single-person portraits.
	Autocrop bool `url:"autocrop,omitempty"`
	// AutocropDetectOnly reports the crop without applying it; requires
	// Autocrop.
	AutocropDetectOnly bool `url:"autocropDetectOnly,omitempty"`
	// The auto-crop tuning values are decimal strings copied from the
	// desktop editor, e.g. "1.25". Empty means the service default.
	AutocropSize string `url:"autocropSize,omitempty"`
	AutocropX    string `url:"autocropX,omitempty"`
	AutocropY    string `url:"autocropY,omitempty"`
	CropARW      string `url:"cropARW,omitempty"`
	CropARH      string `url:"cropARH,omitempty"`
	// AutocropTopHeadGap enables the top-of-head gap target when positive.
	AutocropTopHeadGap string `url:"autocropTopHeadGap,omitempty"`

	// Skip is the non-photo skip mode; ignored under AI preset selection.
	Skip pfc.SkipMode `url:"skip,omitempty"`
	// RemoveGlares enables glasses glare detection and correction.
	RemoveGlares bool `url:"removeGlares,omitempty"`

	// RemoveBackground enables background removal; every Bg* field
	// requires it. The mode is chosen by priority: BgGenerativePrompt,
	// then BgFileKey, then BgColor, else transparent.
	RemoveBackground bool `url:"removeBackground,omitempty"`
	// BgColor is "#rrggbb" or a CSS colour name (see ParseColor).
	BgColor string `url:"bgColor,omitempty"`
	// BgGenerativePrompt describes a background to generate.
	BgGenerativePrompt string `url:"bgGenerativePrompt,omitempty"`
	// BgFileKey is the /upload key of a background image.
	BgFileKey string `url:"bgFileKey,omitempty"`
	// BgShadow adds a shadow; only in the image and solid-colour modes.
	BgShadow Shadow `url:"bgShadow,omitempty"`

	// PreserveMetadata keeps EXIF, IPTC, XMP and colour profiles; nil means
	// the service default, true.
	PreserveMetadata *bool `url:"preserveMetadata,omitempty"`
	// UpdateThumbnail regenerates the embedded JPEG thumbnail.
	UpdateThumbnail bool `url:"updateThumbnail,omitempty"`
	// IncludeDetectionData adds detectionData to the job record.
	IncludeDetectionData bool `url:"includeDetectionData,omitempty"`
	// WebhookURL receives the job record on completion; absolute https.
	WebhookURL string `url:"webhookUrl,omitempty"`

	// Strict makes Validate report every parameter the service would
	// ignore (see Plan) as an error. It is never sent.
	Strict bool `url:"-"`
}

// NewCorrection returns options with the service defaults, to chain
// setters on. Correct and CorrectFile set the file key themselves; for
// StartJob, add it with WithFileKey:
//
//	opts := hosted.NewCorrection().WithPreset(hosted.PresetPro).WithLong(1200)
//	job, err := c.CorrectFile(ctx, "in.jpg", "out.jpg", opts, nil)
//	ref, err := c.StartJob(ctx, hosted.NewCorrection().WithFileKey(fileKey))
func NewCorrection() *CorrectionOptions {
	return &CorrectionOptions{}
}

// Clone returns a copy of o that shares nothing with it, to derive
// variants from common options without the setters of one changing the
// other. A nil o gives new empty options.
func (o *CorrectionOptions) Clone() *CorrectionOptions {
	if o == nil {
		return NewCorrection()
	}
	c := *o
	if o.Cache != nil {
		v := *o.Cache
		c.Cache = &v
	}
	if o.PreserveMetadata != nil {
		v := *o.PreserveMetadata
		c.PreserveMetadata = &v
	}
	return &c
}

// WithFileKey sets the fileKey, the key returned by an upload (Upload,
// UploadFile). Correct and CorrectFile set it themselves.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithFileKey(fileKey string) *CorrectionOptions {
	o.FileKey = fileKey
	return o
}

// WithFileType sets the fileType; use FileTypeVideo for video uploads.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithFileType(t FileType) *CorrectionOptions {
	o.FileType = t
	return o
}

// WithPreset sets the preset: a Preset* constant or a custom preset name.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithPreset(name string) *CorrectionOptions {
	o.Preset = name
	return o
}

// WithOutput sets the output format and the JPEG quality (0 keeps the
// default, 90).
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithOutput(t pfc.OutputFormat, quality int) *CorrectionOptions {
	o.OutputType = t
	o.OutputQuality = quality
	return o
}

// setSize makes one resize parameter the only one, since the service
// honours just one per request.
func (o *CorrectionOptions) setSize(target *int, v int) *CorrectionOptions {
	o.Width, o.Height, o.Long, o.Short, o.Scale = 0, 0, 0, 0, 0
	*target = v
	return o
}

// WithWidth resizes to px pixels wide, keeping the aspect ratio. Like
// WithHeight, WithLong, WithShort and WithScale, it clears the other size
// parameters.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithWidth(px int) *CorrectionOptions { return o.setSize(&o.Width, px) }

// WithHeight resizes to px pixels high, keeping the aspect ratio.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithHeight(px int) *CorrectionOptions {
	return o.setSize(&o.Height, px)
}

// WithLong resizes so that the long edge is px pixels.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithLong(px int) *CorrectionOptions { return o.setSize(&o.Long, px) }

// WithShort resizes so that the short edge is px pixels.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithShort(px int) *CorrectionOptions { return o.setSize(&o.Short, px) }

// WithScale scales both edges by percent (200 doubles them).
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithScale(percent int) *CorrectionOptions {
	return o.setSize(&o.Scale, percent)
}

// WithResizeMode sets the upscaling mode of a resize (WithWidth,
// WithHeight, WithLong, WithShort, WithScale).
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithResizeMode(m ResizeMode) *CorrectionOptions {
	o.Resize = m
	return o
}

// AutocropSettings are the optional auto-crop values, as decimal strings
// copied from the desktop editor. Empty strings keep the service defaults.
type AutocropSettings struct {
	DetectOnly   bool   // autocropDetectOnly: report the crop, don't apply it
	Size         string // autocropSize: head size factor
	X, Y         string // autocropX, autocropY: relative head offset
	AspectWidth  string // cropARW
	AspectHeight string // cropARH
	TopHeadGap   string // autocropTopHeadGap: positive enables
}

// WithAutocrop enables auto cropping with the service defaults, as in
// pfccontainer, replacing any earlier auto-crop values (see
// WithAutocropSettings). It modifies o and returns o itself, for chaining
// (see Clone).
func (o *CorrectionOptions) WithAutocrop() *CorrectionOptions {
	return o.WithAutocropSettings(AutocropSettings{})
}

// WithAutocropSettings enables auto cropping with s (the zero value is
// WithAutocrop), replacing any earlier auto-crop values.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithAutocropSettings(s AutocropSettings) *CorrectionOptions {
	o.Autocrop = true
	o.AutocropDetectOnly = s.DetectOnly
	o.AutocropSize, o.AutocropX, o.AutocropY = s.Size, s.X, s.Y
	o.CropARW, o.CropARH, o.AutocropTopHeadGap = s.AspectWidth, s.AspectHeight, s.TopHeadGap
	return o
}

// WithGlareRemoval enables glasses glare removal.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithGlareRemoval() *CorrectionOptions {
	o.RemoveGlares = true
	return o
}

// setBackground enables background removal with exactly one mode
// parameter; the shadow is left as set.
func (o *CorrectionOptions) setBackground(color, prompt, fileKey string) *CorrectionOptions {
	o.RemoveBackground = true
	o.BgColor, o.BgGenerativePrompt, o.BgFileKey = color, prompt, fileKey
	return o
}

// WithTransparentBackground removes the background, leaving it
// transparent. Like WithBackgroundColor, WithBackgroundImage and
// WithGenerativeBackground, it clears the other background mode
// parameters.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithTransparentBackground() *CorrectionOptions {
	return o.setBackground("", "", "")
}

// WithBackgroundColor replaces the background with color, "#rrggbb" or a
// CSS colour name.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithBackgroundColor(color string) *CorrectionOptions {
	return o.setBackground(color, "", "")
}

// WithBackgroundImage replaces the background with the uploaded image
// bgFileKey.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithBackgroundImage(bgFileKey string) *CorrectionOptions {
	return o.setBackground("", "", bgFileKey)
}

// WithGenerativeBackground replaces the background with one generated
// from prompt.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithGenerativeBackground(prompt string) *CorrectionOptions {
	return o.setBackground("", prompt, "")
}

// WithShadow adds a synthetic shadow (image and solid-colour modes only).
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithShadow(s Shadow) *CorrectionOptions {
	o.BgShadow = s
	return o
}

// WithCache sets cache explicitly; false forces a fresh correction.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithCache(enabled bool) *CorrectionOptions {
	o.Cache = &enabled
	return o
}

// WithPreserveMetadata sets preserveMetadata explicitly; false drops all
// metadata and colour profiles, which saves time.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithPreserveMetadata(enabled bool) *CorrectionOptions {
	o.PreserveMetadata = &enabled
	return o
}

// WithThumbnailUpdate regenerates the embedded JPEG thumbnail.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithThumbnailUpdate() *CorrectionOptions {
	o.UpdateThumbnail = true
	return o
}

// WithDetectionData adds detectionData to the job record.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithDetectionData() *CorrectionOptions {
	o.IncludeDetectionData = true
	return o
}

// WithWebhook has the job record POSTed to webhookURL (absolute https) on
// completion.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithWebhook(webhookURL string) *CorrectionOptions {
	o.WebhookURL = webhookURL
	return o
}

// WithStrict turns on Strict: parameters the service would ignore fail
// validation.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithStrict() *CorrectionOptions {
	o.Strict = true
	return o
}

// Validate checks o against the service's documented rules without any
// I/O. It returns nil or a *pfc.ValidationError (matching pfc.ErrInvalidParameter)
// naming every offending parameter by its wire name: fileKey missing,
// values outside their documented set or range, auto-crop values that are
// not decimal numbers, a webhookUrl that is not absolute https, a bgColor
// that is neither #rrggbb nor a colour name. A parameter the service
// ignores (see Plan) is an error only with Strict, so Validate and Plan
// always agree. A nil o is reported as a missing fileKey. The package
// documentation lists the rules.
func (o *CorrectionOptions) Validate() (err error) {
	if o == nil {
		return &apierr.ValidationError{Errors: []apierr.FieldError{{Field: "fileKey", Message: "is required"}}}
	}
	return o.validate(true)
}

// ValidateForUpload is Validate without the fileKey check: it checks
// options before the file they apply to is uploaded, as Correct and
// CorrectFile do (they set fileKey from the upload, replacing any value
// o holds). A nil o is valid: the service defaults.
func (o *CorrectionOptions) ValidateForUpload() (err error) {
	if o == nil {
		return nil
	}
	return o.validate(false)
}

// binding ties CorrectionOptions to the declaration table of the /pfc
// parameters, from which validation and encoding derive.
var binding = pfcparams.MustBind(pfcparams.Hosted, CorrectionOptions{})

// validEnum reports whether v is one of the values the table declares for
// the enum parameter name.
func validEnum(name, v string) bool {
	p, ok := pfcparams.Lookup(name)
	return ok && p.ValidValue(v)
}

// validate checks o; needKey says whether a missing fileKey is an error.
func (o *CorrectionOptions) validate(needKey bool) error {
	var fe apierr.FieldErrors
	for _, p := range binding.Check(o, needKey) {
		fe.Add(p.Name, "%s", p.Message)
	}
	if o.Strict {
		for _, ig := range o.Plan().Ignored {
			if !hasField(fe, ig.Name) {
				fe.Add(ig.Name, "would be ignored (strict mode): %s", ig.Reason)
			}
		}
	}
	return fe.Err()
}

// encode returns the query parameters of o, unvalidated.
func (o *CorrectionOptions) encode() url.Values {
	v := url.Values{}
	binding.Encode(o, v)
	return v
}

// Values validates o and returns its query parameters. Unset fields are
// absent.
func (o *CorrectionOptions) Values() (_ url.Values, err error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o.encode(), nil
}

// Query validates o and returns the encoded query string for GET /pfc:
// keys sorted, values percent-encoded with spaces as %20 (as the service
// documents, e.g. preset=School%20and%20Sports), so the same options always
// give the same bytes.
func (o *CorrectionOptions) Query() (_ string, err error) {
	v, err := o.Values()
	if err != nil {
		return "", err
	}
	return encodeQuery(v), nil
}

// encodeQuery is url.Values.Encode with %20 for spaces. Encode escapes a
// literal '+' as %2B, so every '+' in its output stands for a space and
// can be rewritten safely.
func encodeQuery(v url.Values) string {
	return strings.ReplaceAll(v.Encode(), "+", "%20")
}

func hasField(fe apierr.FieldErrors, name string) bool {
	for _, f := range fe {
		if f.Field == name {
			return true
		}
	}
	return false
}
