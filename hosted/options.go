package hosted

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-querystring/query"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// Limits of the GET /pfc size and outputQuality parameters, as documented
// by the service (MaxScale excepted).
const (
	MinSize          = pfcparams.MinSize          // smallest width, height, long or short: 32
	MaxSize          = pfcparams.MaxSize          // largest width, height, long or short: 10000
	MinOutputQuality = pfcparams.MinOutputQuality // lowest outputQuality (JPEG quality): 40
	MaxOutputQuality = pfcparams.MaxOutputQuality // highest outputQuality (JPEG quality): 100
	// MaxScale is the largest scale percentage the SDK sends, 62500: the
	// service documents none, and from the smallest input (32 px) it already
	// reaches the largest output (20,000 px); the mock applies the same bound.
	MaxScale = pfcparams.MaxScale
)

// CorrectionOptions are the query parameters of GET /pfc, which starts a
// correction job. Fill the struct directly or start from NewCorrection and
// chain setters. Zero values are not sent, so the service default applies;
// Cache and PreserveMetadata default to true on the service and are
// pointers so that an explicit false is sent.
//
// The setters (With*, Resize*, RemoveBackground*, Strictly) modify the
// options they are called on and return that same pointer, for chaining;
// they do not copy. Derive variants from common options with Clone.
//
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
	OutputType OutputType `url:"outputType,omitempty"`
	// Resize is the upscaling mode, used only when a size is requested.
	Resize ResizeMode `url:"resize,omitempty"`

	// Width, Height, Long and Short are target sizes in pixels
	// (MinSize..MaxSize); Scale is a percentage (> 0). Use one: when several
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
	Skip SkipMode `url:"skip,omitempty"`
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
//	opts := hosted.NewCorrection().WithPreset(hosted.PresetPro).ResizeLong(1200)
//	job, err := c.CorrectFile(ctx, "in.jpg", "out.jpg", opts)
//	ref, err := c.StartJob(ctx, hosted.NewCorrection().WithFileKey(key))
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
func (o *CorrectionOptions) WithOutput(t OutputType, quality int) *CorrectionOptions {
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

// ResizeWidth resizes to px pixels wide, keeping the aspect ratio. Like
// every Resize* setter it clears the other size parameters.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) ResizeWidth(px int) *CorrectionOptions { return o.setSize(&o.Width, px) }

// ResizeHeight resizes to px pixels high, keeping the aspect ratio.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) ResizeHeight(px int) *CorrectionOptions {
	return o.setSize(&o.Height, px)
}

// ResizeLong resizes so that the long edge is px pixels.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) ResizeLong(px int) *CorrectionOptions { return o.setSize(&o.Long, px) }

// ResizeShort resizes so that the short edge is px pixels.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) ResizeShort(px int) *CorrectionOptions { return o.setSize(&o.Short, px) }

// ResizeScale scales both edges by percent (200 doubles them).
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) ResizeScale(percent int) *CorrectionOptions {
	return o.setSize(&o.Scale, percent)
}

// WithResizeMode sets the upscaling mode used by a Resize* request.
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

// WithAutocrop enables auto cropping with s (the zero value uses the
// service defaults), replacing any earlier auto-crop values.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) WithAutocrop(s AutocropSettings) *CorrectionOptions {
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

// RemoveBackgroundTransparent removes the background, leaving it
// transparent. Like every RemoveBackground* setter it clears the other
// background mode parameters.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) RemoveBackgroundTransparent() *CorrectionOptions {
	return o.setBackground("", "", "")
}

// RemoveBackgroundColor replaces the background with color, "#rrggbb" or a
// CSS colour name.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) RemoveBackgroundColor(color string) *CorrectionOptions {
	return o.setBackground(color, "", "")
}

// RemoveBackgroundImage replaces the background with the uploaded image
// bgFileKey.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) RemoveBackgroundImage(bgFileKey string) *CorrectionOptions {
	return o.setBackground("", "", bgFileKey)
}

// RemoveBackgroundGenerative replaces the background with one generated
// from prompt.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) RemoveBackgroundGenerative(prompt string) *CorrectionOptions {
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

// Strictly turns on Strict: parameters the service would ignore fail
// validation.
// It modifies o and returns o itself, for chaining (see Clone).
func (o *CorrectionOptions) Strictly() *CorrectionOptions {
	o.Strict = true
	return o
}

// decimalPattern is a plain decimal number as the desktop editor writes
// it: optional sign, digits, optional fraction; no exponent, no spaces.
var decimalPattern = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$`)

// Validate checks o against the service's documented rules without any
// I/O. It returns nil or a *pfc.ValidationError (matching pfc.ErrInvalidParameter)
// that names every offending parameter by its wire name:
//   - fileKey is required;
//   - fileType, outputType, resize, skip and bgShadow hold documented values;
//   - width, height, long and short are 32..10000, scale > 0, outputQuality
//     40..100 (zero means unset);
//   - the auto-crop values are decimal numbers;
//   - webhookUrl is an absolute https URL with a host;
//   - bgColor is "#rrggbb", a CSS colour name or "transparent";
//   - with Strict, every parameter listed in Plan().Ignored is an error.
//
// What the service ignores is not an error without Strict: one rule for
// every parameter, so Validate and Plan always agree. In particular a bg
// parameter without removeBackground=true (bgColor included, even its
// default "transparent"), a lower-priority background parameter, bgShadow
// outside the image and solid-colour modes, and autocropDetectOnly or an
// auto-crop value without autocrop=true are reported by Plan and refused
// only in strict mode. (The API says such parameters "require" the other
// one; the SDK reads that as "have no effect without it".)
//
// A nil o is reported as a missing fileKey.
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

// validate checks o; needKey says whether a missing fileKey is an error.
func (o *CorrectionOptions) validate(needKey bool) error {
	var fe apierr.FieldErrors
	if needKey && strings.TrimSpace(o.FileKey) == "" {
		fe.Add("fileKey", "is required")
	}
	checkEnum(&fe, "fileType", string(o.FileType), o.FileType.Valid(), FileTypeImage, FileTypeVideo)
	checkEnum(&fe, "outputType", string(o.OutputType), o.OutputType.Valid(), OutputJPG, OutputPNG, OutputOriginal)
	checkEnum(&fe, "resize", string(o.Resize), o.Resize.Valid(), ResizeAuto, ResizeGeneral, ResizeSmallDetails)

	for _, s := range []struct {
		name  string
		value int
	}{{"width", o.Width}, {"height", o.Height}, {"long", o.Long}, {"short", o.Short}} {
		if s.value != 0 && (s.value < MinSize || s.value > MaxSize) {
			fe.Add(s.name, "must be between %d and %d pixels, got %d", MinSize, MaxSize, s.value)
		}
	}
	if o.Scale < 0 || o.Scale > MaxScale {
		fe.Add("scale", "must be a percentage between 1 and %d, got %d", MaxScale, o.Scale)
	}
	if o.OutputQuality != 0 && (o.OutputQuality < MinOutputQuality || o.OutputQuality > MaxOutputQuality) {
		fe.Add("outputQuality", "must be between %d and %d, got %d", MinOutputQuality, MaxOutputQuality, o.OutputQuality)
	}

	for _, n := range o.autocropNumbers() {
		if n.value != "" && !isDecimal(n.value) {
			fe.Add(n.name, "must be a decimal number such as 0.5, got %q", n.value)
		}
	}
	checkEnum(&fe, "skip", string(o.Skip), o.Skip.Valid(), SkipClipart, SkipLegacy, SkipNone)

	if o.BgColor != "" {
		if _, err := ParseColor(o.BgColor); err != nil {
			fe.Add("bgColor", "must be #rrggbb or a CSS color name, got %q", o.BgColor)
		}
	}
	checkEnum(&fe, "bgShadow", string(o.BgShadow), o.BgShadow.Valid(), ShadowSoft, ShadowHard, ShadowFloating)
	// The bg* parameters without removeBackground, and bgShadow outside the
	// image and colour modes, are ignored by the service: Plan reports
	// them, and only Strict refuses them (below).

	if o.WebhookURL != "" {
		if msg := checkWebhookURL(o.WebhookURL); msg != "" {
			fe.Add("webhookUrl", "%s", msg)
		}
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

// Values validates o and returns its query parameters. Unset fields are
// absent.
func (o *CorrectionOptions) Values() (_ url.Values, err error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	v, err := query.Values(o)
	if err != nil {
		return nil, fmt.Errorf("pfc: encode /pfc options: %w", err)
	}
	return v, nil
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

func checkEnum[T ~string](fe *apierr.FieldErrors, name, value string, valid bool, allowed ...T) {
	if value == "" || valid {
		return
	}
	list := make([]string, len(allowed))
	for i, a := range allowed {
		list[i] = string(a)
	}
	fe.Add(name, "must be one of %s, got %q", strings.Join(list, ", "), value)
}

func isDecimal(s string) bool {
	if !decimalPattern.MatchString(s) {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// checkWebhookURL returns why u is not an acceptable webhook URL, or "".
// The URL itself is left out of the message: it may embed a secret token.
func checkWebhookURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "is not a valid URL"
	}
	switch {
	case parsed.Scheme == "http":
		return "must use https (the service rejects plain http)"
	case parsed.Scheme != "https":
		return "must be an absolute https URL"
	case parsed.Hostname() == "":
		return "must be an absolute https URL with a host"
	}
	return ""
}

func hasField(fe apierr.FieldErrors, name string) bool {
	for _, f := range fe {
		if f.Field == name {
			return true
		}
	}
	return false
}
