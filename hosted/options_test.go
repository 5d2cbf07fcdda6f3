package hosted_test

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/paramtest"
	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestLimitsAsDocumented pins the limits to the values their doc
// comments give.
func TestLimitsAsDocumented(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int{32, 10000, 40, 100, 62500},
		[]int{32, 10000, 40, 100, 62500})
}

// fieldsOf returns the wire names an error reports, in order; nil for nil.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	fields := make([]string, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		fields = append(fields, fe.Field)
	}
	return fields
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	type mod func(o *hosted.CorrectionOptions)
	rb := func(o *hosted.CorrectionOptions) { o.RemoveBackground = true }
	tests := []struct {
		name string
		mod  mod
		want []string // offending wire names; nil means valid
	}{
		// fileKey is required.
		{"fileKey empty", func(o *hosted.CorrectionOptions) { o.FileKey = "" }, []string{"fileKey"}},
		{"fileKey blank", func(o *hosted.CorrectionOptions) { o.FileKey = " \t" }, []string{"fileKey"}},
		{"fileKey set", func(o *hosted.CorrectionOptions) { o.FileKey = "a" }, nil},

		// Enums.
		{"fileType unknown", func(o *hosted.CorrectionOptions) { o.FileType = "audio" }, []string{"fileType"}},
		{"fileType wrong case", func(o *hosted.CorrectionOptions) { o.FileType = "Image" }, []string{"fileType"}},
		{"fileType image", func(o *hosted.CorrectionOptions) { o.FileType = hosted.FileTypeImage }, nil},
		{"fileType video", func(o *hosted.CorrectionOptions) { o.FileType = hosted.FileTypeVideo }, nil},
		{"outputType unknown", func(o *hosted.CorrectionOptions) { o.OutputType = "gif" }, []string{"outputType"}},
		{"outputType jpg spelling", func(o *hosted.CorrectionOptions) { o.OutputType = "jpg" }, nil},
		{"outputType jpg", func(o *hosted.CorrectionOptions) { o.OutputType = pfc.OutputJPEG }, nil},
		{"outputType png", func(o *hosted.CorrectionOptions) { o.OutputType = pfc.OutputPNG }, nil},
		{"outputType original", func(o *hosted.CorrectionOptions) { o.OutputType = pfc.OutputOriginal }, nil},
		{"resize unknown", func(o *hosted.CorrectionOptions) { o.Resize = "fast"; o.Width = 100 }, []string{"resize"}},
		{"resize wrong case", func(o *hosted.CorrectionOptions) { o.Resize = "smalldetails"; o.Width = 100 }, []string{"resize"}},
		{"resize auto", func(o *hosted.CorrectionOptions) { o.Resize = hosted.ResizeAuto; o.Width = 100 }, nil},
		{"resize general", func(o *hosted.CorrectionOptions) { o.Resize = hosted.ResizeGeneral; o.Width = 100 }, nil},
		{"resize smallDetails", func(o *hosted.CorrectionOptions) { o.Resize = hosted.ResizeSmallDetails; o.Width = 100 }, nil},
		{"skip unknown", func(o *hosted.CorrectionOptions) { o.Skip = "photos" }, []string{"skip"}},
		{"skip clipart", func(o *hosted.CorrectionOptions) { o.Skip = pfc.SkipClipart }, nil},
		{"skip legacy", func(o *hosted.CorrectionOptions) { o.Skip = pfc.SkipLegacy }, nil},
		{"skip none", func(o *hosted.CorrectionOptions) { o.Skip = pfc.SkipNone }, nil},
		{"bgShadow unknown", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "red"; o.BgShadow = "medium" }, []string{"bgShadow"}},
		{"bgShadow soft", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "red"; o.BgShadow = hosted.ShadowSoft }, nil},
		{"bgShadow hard", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "red"; o.BgShadow = hosted.ShadowHard }, nil},
		{"bgShadow floating", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "red"; o.BgShadow = hosted.ShadowFloating }, nil},

		// Size ranges 32..10000.
		{"width 31", func(o *hosted.CorrectionOptions) { o.Width = 31 }, []string{"width"}},
		{"width 10001", func(o *hosted.CorrectionOptions) { o.Width = 10001 }, []string{"width"}},
		{"width negative", func(o *hosted.CorrectionOptions) { o.Width = -800 }, []string{"width"}},
		{"width 32", func(o *hosted.CorrectionOptions) { o.Width = 32 }, nil},
		{"width 10000", func(o *hosted.CorrectionOptions) { o.Width = 10000 }, nil},
		{"height 31", func(o *hosted.CorrectionOptions) { o.Height = 31 }, []string{"height"}},
		{"height 10001", func(o *hosted.CorrectionOptions) { o.Height = 10001 }, []string{"height"}},
		{"height 32", func(o *hosted.CorrectionOptions) { o.Height = 32 }, nil},
		{"height 10000", func(o *hosted.CorrectionOptions) { o.Height = 10000 }, nil},
		{"long 31", func(o *hosted.CorrectionOptions) { o.Long = 31 }, []string{"long"}},
		{"long 10001", func(o *hosted.CorrectionOptions) { o.Long = 10001 }, []string{"long"}},
		{"long 32", func(o *hosted.CorrectionOptions) { o.Long = 32 }, nil},
		{"long 10000", func(o *hosted.CorrectionOptions) { o.Long = 10000 }, nil},
		{"short 31", func(o *hosted.CorrectionOptions) { o.Short = 31 }, []string{"short"}},
		{"short 10001", func(o *hosted.CorrectionOptions) { o.Short = 10001 }, []string{"short"}},
		{"short 32", func(o *hosted.CorrectionOptions) { o.Short = 32 }, nil},
		{"short 10000", func(o *hosted.CorrectionOptions) { o.Short = 10000 }, nil},
		{"ignored sizes are still range-checked", func(o *hosted.CorrectionOptions) { o.Width = 100; o.Scale = -1 }, []string{"scale"}},

		// scale > 0.
		{"scale negative", func(o *hosted.CorrectionOptions) { o.Scale = -1 }, []string{"scale"}},
		{"scale 1", func(o *hosted.CorrectionOptions) { o.Scale = 1 }, nil},
		{"scale 400", func(o *hosted.CorrectionOptions) { o.Scale = 400 }, nil},
		{"scale at the shared bound", func(o *hosted.CorrectionOptions) { o.Scale = 62500 }, nil},
		{"scale above the shared bound", func(o *hosted.CorrectionOptions) { o.Scale = 62500 + 1 }, []string{"scale"}},

		// outputQuality 40..100.
		{"outputQuality 39", func(o *hosted.CorrectionOptions) { o.OutputQuality = 39 }, []string{"outputQuality"}},
		{"outputQuality 101", func(o *hosted.CorrectionOptions) { o.OutputQuality = 101 }, []string{"outputQuality"}},
		{"outputQuality negative", func(o *hosted.CorrectionOptions) { o.OutputQuality = -90 }, []string{"outputQuality"}},
		{"outputQuality 40", func(o *hosted.CorrectionOptions) { o.OutputQuality = 40 }, nil},
		{"outputQuality 100", func(o *hosted.CorrectionOptions) { o.OutputQuality = 100 }, nil},

		// webhookUrl is an absolute https URL with a host.
		{"webhook http", func(o *hosted.CorrectionOptions) { o.WebhookURL = "http://example.com/hook" }, []string{"webhookUrl"}},
		{"webhook ftp", func(o *hosted.CorrectionOptions) { o.WebhookURL = "ftp://example.com/hook" }, []string{"webhookUrl"}},
		{"webhook relative", func(o *hosted.CorrectionOptions) { o.WebhookURL = "/hook" }, []string{"webhookUrl"}},
		{"webhook no scheme", func(o *hosted.CorrectionOptions) { o.WebhookURL = "example.com/hook" }, []string{"webhookUrl"}},
		{"webhook no host", func(o *hosted.CorrectionOptions) { o.WebhookURL = "https:///hook" }, []string{"webhookUrl"}},
		{"webhook port only", func(o *hosted.CorrectionOptions) { o.WebhookURL = "https://:443/hook" }, []string{"webhookUrl"}},
		{"webhook opaque", func(o *hosted.CorrectionOptions) { o.WebhookURL = "https:example.com" }, []string{"webhookUrl"}},
		{"webhook unparsable", func(o *hosted.CorrectionOptions) { o.WebhookURL = "https://exa mple.com/" }, []string{"webhookUrl"}},
		{"webhook https", func(o *hosted.CorrectionOptions) { o.WebhookURL = "https://example.com" }, nil},
		{"webhook https with port path query", func(o *hosted.CorrectionOptions) {
			o.WebhookURL = "HTTPS://hooks.example.com:8443/pfc/done?tenant=a&x=1"
		}, nil},

		// bgColor is #rrggbb, a CSS colour name or transparent.
		{"bgColor short hex", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "#fff" }, []string{"bgColor"}},
		{"bgColor hex with alpha", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "#ffffffff" }, []string{"bgColor"}},
		{"bgColor without hash", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "ffffff" }, []string{"bgColor"}},
		{"bgColor bad digit", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "#12345g" }, []string{"bgColor"}},
		{"bgColor unknown name", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "blurple" }, []string{"bgColor"}},
		{"bgColor padded name", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = " red" }, []string{"bgColor"}},
		{"bgColor hex", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "#00fF7a" }, nil},
		{"bgColor name any case", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "RebeccaPurple" }, nil},
		{"bgColor transparent", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "transparent" }, nil},

		// autocropDetectOnly needs autocrop.
		{"detect-only without autocrop (ignored, see Plan)", func(o *hosted.CorrectionOptions) { o.AutocropDetectOnly = true }, nil},
		{"detect-only with autocrop", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropDetectOnly = true }, nil},

		// Auto-crop values are decimal numbers.
		{"autocropSize word", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropSize = "big" }, []string{"autocropSize"}},
		{"autocropX exponent", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropX = "1e3" }, []string{"autocropX"}},
		{"autocropY NaN", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropY = "NaN" }, []string{"autocropY"}},
		{"cropARW Inf", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.CropARW = "Inf" }, []string{"cropARW"}},
		{"cropARH trailing dot", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.CropARH = "5." }, []string{"cropARH"}},
		{"autocropTopHeadGap space", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropTopHeadGap = " 1" }, []string{"autocropTopHeadGap"}},
		{"autocropSize comma decimal", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropSize = "0,5" }, []string{"autocropSize"}},
		{"autocrop huge number overflows", func(o *hosted.CorrectionOptions) { o.Autocrop = true; o.AutocropSize = "1" + strings.Repeat("0", 400) }, []string{"autocropSize"}},
		{"autocrop decimals", func(o *hosted.CorrectionOptions) {
			o.Autocrop = true
			o.AutocropSize, o.AutocropX, o.AutocropY = "1.25", "-0.5", "+.75"
			o.CropARW, o.CropARH, o.AutocropTopHeadGap = "4", "5", "-1"
		}, nil},

		// bg parameters without removeBackground are ignored, not invalid
		// (Plan reports them, Strict refuses them).
		{"bgColor without removal", func(o *hosted.CorrectionOptions) { o.BgColor = "red" }, nil},
		{"bgColor default without removal", func(o *hosted.CorrectionOptions) { o.BgColor = "transparent" }, nil},
		{"bad bgColor without removal", func(o *hosted.CorrectionOptions) { o.BgColor = "#abc" }, []string{"bgColor"}},
		{"bgGenerativePrompt without removal", func(o *hosted.CorrectionOptions) { o.BgGenerativePrompt = "beach" }, nil},
		{"bgFileKey without removal", func(o *hosted.CorrectionOptions) { o.BgFileKey = "bg" }, nil},
		{"bgShadow without removal", func(o *hosted.CorrectionOptions) { o.BgShadow = hosted.ShadowSoft }, nil},
		{"bgColor with removal", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor = "red" }, nil},
		{"bgGenerativePrompt with removal", func(o *hosted.CorrectionOptions) { rb(o); o.BgGenerativePrompt = "beach" }, nil},
		{"bgFileKey with removal", func(o *hosted.CorrectionOptions) { rb(o); o.BgFileKey = "bg" }, nil},

		// bgShadow has an effect only in the image and solid-colour modes;
		// elsewhere it is ignored, not invalid.
		{"shadow generative", func(o *hosted.CorrectionOptions) {
			rb(o)
			o.BgGenerativePrompt, o.BgFileKey, o.BgShadow = "beach", "bg", hosted.ShadowSoft
		}, nil},
		{"shadow transparent", func(o *hosted.CorrectionOptions) { rb(o); o.BgShadow = hosted.ShadowSoft }, nil},
		{"shadow explicit transparent colour", func(o *hosted.CorrectionOptions) {
			rb(o)
			o.BgColor, o.BgShadow = "transparent", hosted.ShadowHard
		}, nil},
		{"shadow image", func(o *hosted.CorrectionOptions) { rb(o); o.BgFileKey, o.BgShadow = "bg", hosted.ShadowFloating }, nil},
		{"shadow colour", func(o *hosted.CorrectionOptions) { rb(o); o.BgColor, o.BgShadow = "#000000", hosted.ShadowFloating }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := hosted.NewCorrection().WithFileKey("key")
			tt.mod(o)
			err := o.Validate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, fieldsOf(t, err))
			for _, f := range tt.want {
				assert.Contains(t, err.Error(), f+": ")
			}
		})
	}
}

func TestValidateReportsEveryFieldAtOnce(t *testing.T) {
	t.Parallel()
	o := &hosted.CorrectionOptions{
		FileType:           "doc",
		Width:              20,
		Long:               20000,
		OutputQuality:      10,
		AutocropDetectOnly: true,
		BgColor:            "#abc",
		WebhookURL:         "http://example.com/hook?token=s3cret",
	}
	err := o.Validate()
	require.Error(t, err)
	assert.True(t, errors.Is(err, pfc.ErrInvalidParameter))
	assert.True(t, errors.Is(err, pfc.ErrInvalidParameter))
	var ve *pfc.ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t,
		[]string{"fileKey", "fileType", "width", "long", "outputQuality", "bgColor", "webhookUrl"},
		fieldsOf(t, err))
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, "pfc: invalid parameters: "), msg)
	assert.Contains(t, msg, "width: must be between 32 and 10000 pixels, got 20")
	assert.Contains(t, msg, `bgColor: must be #rrggbb or a CSS color name, got "#abc"`)
	assert.Contains(t, msg, "webhookUrl: must use https")
	assert.NotContains(t, msg, "s3cret", "webhook URLs may carry secrets")

	_, qerr := o.Query()
	assert.Equal(t, err.Error(), qerr.Error(), "Query reports the same validation error")
	v, verr := o.Values()
	assert.Nil(t, v)
	assert.ErrorIs(t, verr, pfc.ErrInvalidParameter)
}

func TestValidateNil(t *testing.T) {
	t.Parallel()
	var o *hosted.CorrectionOptions
	err := o.Validate()
	assert.Equal(t, []string{"fileKey"}, fieldsOf(t, err))
	q, err := o.Query()
	assert.Empty(t, q)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestStrictMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *hosted.CorrectionOptions
		want []string
	}{
		{"nothing ignored", hosted.NewCorrection().WithFileKey("k").WithWidth(800).WithResizeMode(hosted.ResizeGeneral).
			WithBackgroundColor("white").WithShadow(hosted.ShadowSoft).WithOutput(pfc.OutputJPEG, 90).WithStrict(), nil},
		{"lower-priority size", &hosted.CorrectionOptions{FileKey: "k", Width: 800, Scale: 50, Strict: true}, []string{"scale"}},
		{"resize mode without size", &hosted.CorrectionOptions{FileKey: "k", Resize: hosted.ResizeAuto, Strict: true}, []string{"resize"}},
		{"lower-priority background", &hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true,
			BgGenerativePrompt: "beach", BgFileKey: "bg", BgColor: "red", Strict: true}, []string{"bgColor", "bgFileKey"}},
		{"skip under AI selection", &hosted.CorrectionOptions{FileKey: "k", Skip: pfc.SkipNone, Strict: true}, []string{"skip"}},
		{"quality with png", &hosted.CorrectionOptions{FileKey: "k", OutputType: pfc.OutputPNG, OutputQuality: 90, Strict: true},
			[]string{"outputQuality"}},
		{"autocrop values without autocrop", &hosted.CorrectionOptions{FileKey: "k", AutocropSize: "1.5", Strict: true},
			[]string{"autocropSize"}},
		{"detect-only without autocrop", &hosted.CorrectionOptions{FileKey: "k", AutocropDetectOnly: true, Strict: true},
			[]string{"autocropDetectOnly"}},
		{"shadow in generative mode", &hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true,
			BgGenerativePrompt: "beach", BgShadow: hosted.ShadowSoft, Strict: true}, []string{"bgShadow"}},
		{"default bgColor without removal", &hosted.CorrectionOptions{FileKey: "k", BgColor: "transparent", Strict: true},
			[]string{"bgColor"}},
		{"a field already invalid is reported once", &hosted.CorrectionOptions{FileKey: "k", BgColor: "#abc", Strict: true},
			[]string{"bgColor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			assert.Equal(t, tt.want, fieldsOf(t, err))
			if tt.want == nil {
				return
			}
			// Without Strict, options whose only fault is an ignored
			// parameter are valid.
			loose := *tt.opts
			loose.Strict = false
			if strings.Contains(tt.name, "once") {
				assert.Equal(t, tt.want, fieldsOf(t, loose.Validate()))
			} else {
				assert.NoError(t, loose.Validate())
			}
		})
	}

	err := (&hosted.CorrectionOptions{FileKey: "k", Width: 800, Height: 600, Strict: true}).Validate()
	assert.EqualError(t, err,
		"pfc: invalid parameters: height: would be ignored (strict mode): width takes priority (use one resize parameter per request)")
}

func TestQueryExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *hosted.CorrectionOptions
		want string
	}{
		{"only the key", hosted.NewCorrection().WithFileKey("abc123"), "fileKey=abc123"},
		{"explicit false for default-true booleans",
			hosted.NewCorrection().WithFileKey("k").WithCache(false).WithPreserveMetadata(false),
			"cache=false&fileKey=k&preserveMetadata=false"},
		{"explicit true for default-true booleans",
			hosted.NewCorrection().WithFileKey("k").WithCache(true).WithPreserveMetadata(true),
			"cache=true&fileKey=k&preserveMetadata=true"},
		{"preset with spaces as %20",
			hosted.NewCorrection().WithFileKey("k").WithPreset(hosted.PresetSchoolAndSports),
			"fileKey=k&preset=School%20and%20Sports"},
		{"preset attractions",
			hosted.NewCorrection().WithFileKey("k").WithPreset(hosted.PresetAttractionsAndCruiseLines),
			"fileKey=k&preset=Attractions%20and%20Cruise%20Lines"},
		{"literal plus stays %2B",
			hosted.NewCorrection().WithFileKey("k").WithGenerativeBackground("sand + palms, Küste"),
			"bgGenerativePrompt=sand%20%2B%20palms%2C%20K%C3%BCste&fileKey=k&removeBackground=true"},
		{"webhook URL encoded",
			hosted.NewCorrection().WithFileKey("k").WithWebhook("https://hooks.example.com/pfc?tenant=a b&sig=x+y/z"),
			"fileKey=k&webhookUrl=https%3A%2F%2Fhooks.example.com%2Fpfc%3Ftenant%3Da%20b%26sig%3Dx%2By%2Fz"},
		{"hash colour encoded",
			hosted.NewCorrection().WithFileKey("k").WithBackgroundColor("#FF8800").WithShadow(hosted.ShadowHard),
			"bgColor=%23FF8800&bgShadow=hard&fileKey=k&removeBackground=true"},
		{"zero values omitted, setters chained",
			hosted.NewCorrection().WithFileKey("k").WithFileType(hosted.FileTypeImage).WithPreset(hosted.PresetPro).
				WithOutput(pfc.OutputJPEG, 85).WithScale(200).WithResizeMode(hosted.ResizeSmallDetails).
				WithAutocropSettings(hosted.AutocropSettings{DetectOnly: true, Size: "1.2", X: "0", Y: "-0.1", AspectWidth: "4", AspectHeight: "5", TopHeadGap: "0.05"}).
				WithGlareRemoval().WithThumbnailUpdate().WithDetectionData(),
			"autocrop=true&autocropDetectOnly=true&autocropSize=1.2&autocropTopHeadGap=0.05&autocropX=0&autocropY=-0.1" +
				"&cropARH=5&cropARW=4&fileKey=k&fileType=image&includeDetectionData=true&outputQuality=85&outputType=jpg" +
				"&preset=Pro&removeGlares=true&resize=smallDetails&scale=200&updateThumbnail=true"},
		{"strict is never sent", hosted.NewCorrection().WithFileKey("k").WithStrict(), "fileKey=k"},
		{"key with reserved characters", hosted.NewCorrection().WithFileKey("a/b c&d=e"), "fileKey=a%2Fb%20c%26d%3De"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.opts.Query()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := tt.opts.Query()
			require.NoError(t, err)
			assert.Equal(t, got, again, "deterministic")
			assert.NotContains(t, got, "+", "spaces are %20, plus signs %2B")

			// The query round-trips through the standard parser.
			parsed, err := url.ParseQuery(got)
			require.NoError(t, err)
			values, err := tt.opts.Values()
			require.NoError(t, err)
			assert.Equal(t, values, parsed)
		})
	}
}

func TestWireNamesCoverTheAPITable(t *testing.T) {
	t.Parallel()
	// Every field set to a non-zero value: go-querystring must emit exactly
	// the parameter names of the declaration table, nothing else.
	var all hosted.CorrectionOptions
	paramtest.Fill(t, pfcparams.Hosted, &all)
	all.Strict = true
	v, err := query.Values(all)
	require.NoError(t, err)
	got := make([]string, 0, len(v))
	for k := range v {
		got = append(got, k)
	}
	wireNames := pfcparams.Names(pfcparams.Hosted)
	assert.ElementsMatch(t, wireNames, got)

	// And every exported field except Strict carries a url tag.
	typ := reflect.TypeOf(all)
	assert.Equal(t, len(wireNames)+1, typ.NumField())
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("url")
		if f.Name == "Strict" {
			assert.Equal(t, "-", tag)
			continue
		}
		assert.True(t, strings.HasSuffix(tag, ",omitempty"), "%s: %q", f.Name, tag)
	}
}

func TestValuesKeepsExplicitFalse(t *testing.T) {
	t.Parallel()
	v, err := hosted.NewCorrection().WithFileKey("k").WithCache(false).Values()
	require.NoError(t, err)
	assert.Equal(t, url.Values{"fileKey": {"k"}, "cache": {"false"}}, v)
}

func TestSetters(t *testing.T) {
	t.Parallel()
	o := hosted.NewCorrection().WithFileKey("k")
	assert.Same(t, o, o.WithPreset("x").WithWidth(1).WithGlareRemoval().WithStrict())

	t.Run("resize setters keep one size", func(t *testing.T) {
		o := hosted.NewCorrection().WithFileKey("k").WithWidth(800).WithHeight(600).WithLong(1000).WithShort(500).WithScale(150)
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Scale: 150}, *o)
		o.WithWidth(640)
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Width: 640}, *o)
		o.WithHeight(480)
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Height: 480}, *o)
		o.WithLong(1024)
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Long: 1024}, *o)
		o.WithShort(256)
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Short: 256}, *o)
	})
	t.Run("background setters keep one mode and the shadow", func(t *testing.T) {
		o := hosted.NewCorrection().WithFileKey("k").WithShadow(hosted.ShadowSoft).WithGenerativeBackground("beach")
		o.WithBackgroundImage("bg")
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true, BgFileKey: "bg", BgShadow: hosted.ShadowSoft}, *o)
		o.WithBackgroundColor("navy")
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true, BgColor: "navy", BgShadow: hosted.ShadowSoft}, *o)
		o.WithGenerativeBackground("beach")
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true, BgGenerativePrompt: "beach", BgShadow: hosted.ShadowSoft}, *o)
		o.WithTransparentBackground()
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", RemoveBackground: true, BgShadow: hosted.ShadowSoft}, *o)
	})
	t.Run("autocrop replaces earlier values", func(t *testing.T) {
		o := hosted.NewCorrection().WithFileKey("k").WithAutocropSettings(hosted.AutocropSettings{DetectOnly: true, Size: "2"}).WithAutocropSettings(hosted.AutocropSettings{X: "0.1"})
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Autocrop: true, AutocropX: "0.1"}, *o)
		o.WithAutocrop() // the pfccontainer shape: the service defaults
		assert.Equal(t, hosted.CorrectionOptions{FileKey: "k", Autocrop: true}, *o)
	})
	t.Run("default-true booleans become explicit", func(t *testing.T) {
		o := hosted.NewCorrection().WithFileKey("k").WithCache(false).WithPreserveMetadata(true)
		require.NotNil(t, o.Cache)
		require.NotNil(t, o.PreserveMetadata)
		assert.False(t, *o.Cache)
		assert.True(t, *o.PreserveMetadata)
	})
}

func TestEnumValid(t *testing.T) {
	t.Parallel()
	assert.True(t, hosted.FileTypeVideo.Valid())
	assert.False(t, hosted.FileType("").Valid())
	assert.True(t, hosted.ResizeSmallDetails.Valid())
	assert.False(t, hosted.ResizeMode("").Valid())
	assert.True(t, hosted.ShadowFloating.Valid())
	assert.False(t, hosted.Shadow("none").Valid())
}

func TestValidateForUpload(t *testing.T) {
	t.Parallel()
	var nilOpts *hosted.CorrectionOptions
	assert.NoError(t, nilOpts.ValidateForUpload())
	assert.NoError(t, hosted.NewCorrection().ValidateForUpload())
	assert.NoError(t, hosted.NewCorrection().WithFileKey("k").ValidateForUpload())
	assert.Equal(t, []string{"fileKey"}, fieldsOf(t, hosted.NewCorrection().Validate()))
	assert.Equal(t, []string{"width", "bgColor"},
		fieldsOf(t, hosted.NewCorrection().WithWidth(5).WithBackgroundColor("#abc").ValidateForUpload()))
}

func TestCloneSharesNothing(t *testing.T) {
	t.Parallel()
	base := hosted.NewCorrection().WithPreset(hosted.PresetPro).WithCache(true).WithPreserveMetadata(true)
	v := base.Clone().WithPreset(hosted.PresetNone).WithCache(false).WithPreserveMetadata(false)
	assert.Equal(t, hosted.PresetPro, base.Preset)
	assert.True(t, *base.Cache)
	assert.True(t, *base.PreserveMetadata)
	assert.False(t, *v.Cache)
	var nilOpts *hosted.CorrectionOptions
	assert.Equal(t, hosted.NewCorrection(), nilOpts.Clone())

	// Setters modify and return the same options.
	o := hosted.NewCorrection()
	assert.Same(t, o, o.WithPreset("x").WithLong(100))
	assert.Equal(t, "x", o.Preset)
}
