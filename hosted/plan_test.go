package hosted_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

func TestPlanResizePriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        hosted.CorrectionOptions
		wantParam   string
		wantValue   int
		wantIgnored []string
	}{
		{"none", hosted.CorrectionOptions{}, "", 0, nil},
		{"width alone", hosted.CorrectionOptions{Width: 800}, "width", 800, nil},
		{"height alone", hosted.CorrectionOptions{Height: 600}, "height", 600, nil},
		{"long alone", hosted.CorrectionOptions{Long: 1000}, "long", 1000, nil},
		{"short alone", hosted.CorrectionOptions{Short: 500}, "short", 500, nil},
		{"scale alone", hosted.CorrectionOptions{Scale: 200}, "scale", 200, nil},
		{"width beats all", hosted.CorrectionOptions{Width: 800, Height: 600, Long: 1000, Short: 500, Scale: 200},
			"width", 800, []string{"height", "long", "short", "scale"}},
		{"height beats long short scale", hosted.CorrectionOptions{Height: 600, Long: 1000, Short: 500, Scale: 200},
			"height", 600, []string{"long", "short", "scale"}},
		{"long beats short scale", hosted.CorrectionOptions{Long: 1000, Short: 500, Scale: 200},
			"long", 1000, []string{"short", "scale"}},
		{"short beats scale", hosted.CorrectionOptions{Short: 500, Scale: 200},
			"short", 500, []string{"scale"}},
		{"width beats scale", hosted.CorrectionOptions{Width: 800, Scale: 200},
			"width", 800, []string{"scale"}},
		{"mode with a size is used", hosted.CorrectionOptions{Long: 1000, Resize: hosted.ResizeGeneral},
			"long", 1000, nil},
		{"mode without a size is ignored", hosted.CorrectionOptions{Resize: hosted.ResizeSmallDetails},
			"", 0, []string{"resize"}},
		{"out-of-range value still counts as supplied", hosted.CorrectionOptions{Width: 5, Height: 600},
			"width", 5, []string{"height"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.opts.Plan()
			assert.Equal(t, tt.wantParam, p.Resize)
			assert.Equal(t, tt.wantValue, p.ResizeValue)
			assert.Equal(t, names(tt.wantIgnored), p.IgnoredNames())
		})
	}
}

func TestPlanBackgroundPriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        hosted.CorrectionOptions
		want        hosted.BackgroundMode
		wantIgnored []string
	}{
		{"kept", hosted.CorrectionOptions{}, hosted.BackgroundNone, nil},
		{"transparent fallback", hosted.CorrectionOptions{RemoveBackground: true}, hosted.BackgroundTransparent, nil},
		{"explicit transparent colour", hosted.CorrectionOptions{RemoveBackground: true, BgColor: "Transparent"},
			hosted.BackgroundTransparent, nil},
		{"colour", hosted.CorrectionOptions{RemoveBackground: true, BgColor: "#112233"}, hosted.BackgroundColor, nil},
		{"image", hosted.CorrectionOptions{RemoveBackground: true, BgFileKey: "bg"}, hosted.BackgroundImage, nil},
		{"generative", hosted.CorrectionOptions{RemoveBackground: true, BgGenerativePrompt: "beach"},
			hosted.BackgroundGenerative, nil},
		{"image beats colour", hosted.CorrectionOptions{RemoveBackground: true, BgFileKey: "bg", BgColor: "red"},
			hosted.BackgroundImage, []string{"bgColor"}},
		{"generative beats image and colour",
			hosted.CorrectionOptions{RemoveBackground: true, BgGenerativePrompt: "beach", BgFileKey: "bg", BgColor: "red"},
			hosted.BackgroundGenerative, []string{"bgColor", "bgFileKey"}},
		{"generative beats image", hosted.CorrectionOptions{RemoveBackground: true, BgGenerativePrompt: "beach", BgFileKey: "bg"},
			hosted.BackgroundGenerative, []string{"bgFileKey"}},
		{"shadow used with image", hosted.CorrectionOptions{RemoveBackground: true, BgFileKey: "bg", BgShadow: hosted.ShadowSoft},
			hosted.BackgroundImage, nil},
		{"shadow used with colour", hosted.CorrectionOptions{RemoveBackground: true, BgColor: "red", BgShadow: hosted.ShadowHard},
			hosted.BackgroundColor, nil},
		{"shadow ignored in generative mode",
			hosted.CorrectionOptions{RemoveBackground: true, BgGenerativePrompt: "beach", BgShadow: hosted.ShadowFloating},
			hosted.BackgroundGenerative, []string{"bgShadow"}},
		{"shadow ignored in transparent mode", hosted.CorrectionOptions{RemoveBackground: true, BgShadow: hosted.ShadowSoft},
			hosted.BackgroundTransparent, []string{"bgShadow"}},
		{"all bg params ignored without removeBackground",
			hosted.CorrectionOptions{BgColor: "red", BgGenerativePrompt: "beach", BgFileKey: "bg", BgShadow: hosted.ShadowSoft},
			hosted.BackgroundNone, []string{"bgColor", "bgGenerativePrompt", "bgFileKey", "bgShadow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.opts.Plan()
			assert.Equal(t, tt.want, p.Background)
			assert.Equal(t, names(tt.wantIgnored), p.IgnoredNames())
		})
	}
}

func TestPlanOtherRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        hosted.CorrectionOptions
		wantIgnored []string
	}{
		{"skip ignored when preset omitted", hosted.CorrectionOptions{Skip: pfc.SkipLegacy}, []string{"skip"}},
		{"skip ignored with Universal", hosted.CorrectionOptions{Preset: hosted.PresetUniversal, Skip: pfc.SkipNone}, []string{"skip"}},
		{"skip used with Pro", hosted.CorrectionOptions{Preset: hosted.PresetPro, Skip: pfc.SkipNone}, nil},
		{"skip used with a custom preset", hosted.CorrectionOptions{Preset: "My Studio", Skip: pfc.SkipClipart}, nil},
		{"skip used with preset none", hosted.CorrectionOptions{Preset: hosted.PresetNone, Skip: pfc.SkipClipart}, nil},
		{"quality ignored for png", hosted.CorrectionOptions{OutputType: pfc.OutputPNG, OutputQuality: 80}, []string{"outputQuality"}},
		{"quality ignored for implicit png after bg removal",
			hosted.CorrectionOptions{RemoveBackground: true, OutputQuality: 80}, []string{"outputQuality"}},
		{"quality used for jpg after bg removal",
			hosted.CorrectionOptions{RemoveBackground: true, OutputType: pfc.OutputJPEG, OutputQuality: 80}, nil},
		{"quality used for jpg", hosted.CorrectionOptions{OutputType: pfc.OutputJPEG, OutputQuality: 80}, nil},
		{"quality used for original", hosted.CorrectionOptions{OutputType: pfc.OutputOriginal, OutputQuality: 80}, nil},
		{"quality used when output omitted", hosted.CorrectionOptions{OutputQuality: 80}, nil},
		{"autocrop values ignored without autocrop",
			hosted.CorrectionOptions{AutocropDetectOnly: true, AutocropSize: "1", AutocropX: "0", AutocropY: "0",
				CropARW: "4", CropARH: "5", AutocropTopHeadGap: "0.1"},
			[]string{"autocropDetectOnly", "autocropSize", "autocropX", "autocropY", "cropARW", "cropARH", "autocropTopHeadGap"}},
		{"autocrop values used with autocrop",
			hosted.CorrectionOptions{Autocrop: true, AutocropDetectOnly: true, AutocropSize: "1", CropARW: "4", CropARH: "5"}, nil},
		{"plain options ignore nothing",
			*hosted.NewCorrection().WithFileKey("k").WithPreset(hosted.PresetPro).WithOutput(pfc.OutputJPEG, 95).ResizeLong(2000).
				WithGlareRemoval().WithCache(false).WithPreserveMetadata(false).WithThumbnailUpdate().WithDetectionData().
				WithWebhook("https://example.com/hook"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, names(tt.wantIgnored), tt.opts.Plan().IgnoredNames())
		})
	}
}

func TestPlanIgnoredInTableOrderWithReasons(t *testing.T) {
	t.Parallel()
	o := hosted.CorrectionOptions{
		FileKey: "k", Skip: pfc.SkipNone, BgColor: "red", OutputType: pfc.OutputPNG, OutputQuality: 50,
		Width: 100, Scale: 50, Resize: hosted.ResizeAuto,
	}
	p := o.Plan()
	require.Equal(t, []string{"scale", "outputQuality", "skip", "bgColor"}, p.IgnoredNames())
	assert.Equal(t, "scale: width takes priority (use one resize parameter per request)", p.Ignored[0].String())
	assert.Equal(t, "outputQuality: output is PNG", p.Ignored[1].String())
	assert.Equal(t, "skip: AI preset selection is active (preset omitted or Universal)", p.Ignored[2].String())
	assert.Equal(t, "bgColor: requires removeBackground=true", p.Ignored[3].String())
	assert.Equal(t, p, o.Plan(), "Plan is deterministic")
}

func TestPlanNilOptions(t *testing.T) {
	t.Parallel()
	var o *hosted.CorrectionOptions
	assert.Equal(t, hosted.Plan{Background: hosted.BackgroundNone}, o.Plan())
}

// names normalises an expected list so nil and empty compare equal to
// IgnoredNames, which never returns nil.
func names(n []string) []string {
	if n == nil {
		return []string{}
	}
	return n
}

// One rule for what the service ignores: Plan lists it, Validate accepts
// it, and Validate in strict mode refuses exactly those parameters.
func TestValidateAndPlanAgree(t *testing.T) {
	t.Parallel()
	rb := true
	cases := []*hosted.CorrectionOptions{
		{BgColor: "transparent"},
		{BgColor: "red", BgShadow: hosted.ShadowSoft},
		{BgGenerativePrompt: "beach", BgFileKey: "bg"},
		{RemoveBackground: rb, BgShadow: hosted.ShadowHard},
		{RemoveBackground: rb, BgColor: "transparent", BgShadow: hosted.ShadowFloating},
		{RemoveBackground: rb, BgGenerativePrompt: "beach", BgFileKey: "bg", BgColor: "navy", BgShadow: hosted.ShadowSoft},
		{RemoveBackground: rb, BgFileKey: "bg", BgColor: "navy", BgShadow: hosted.ShadowSoft},
		{AutocropDetectOnly: true, AutocropX: "0.5"},
		{Width: 100, Height: 100, Scale: 50, Resize: hosted.ResizeAuto},
		{Resize: hosted.ResizeGeneral, Skip: pfc.SkipNone},
		{OutputType: pfc.OutputPNG, OutputQuality: 80},
		{RemoveBackground: rb, OutputQuality: 80},
	}
	for _, o := range cases {
		o.FileKey = "k"
		ignored := o.Plan().IgnoredNames()
		require.NotEmpty(t, ignored, "%+v", o)
		assert.NoError(t, o.Validate(), "non-strict accepts what is only ignored: %+v", o)
		strict := *o
		strict.Strict = true
		var ve *pfc.ValidationError
		require.ErrorAs(t, strict.Validate(), &ve)
		assert.Equal(t, ignored, ve.Fields(), "%+v", o)
	}
}
