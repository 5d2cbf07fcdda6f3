package pfccontainer

import (
	"errors"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/paramtest"
	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateAcceptsDocumentedValues(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]*CorrectionOptions{
		"nil":     nil,
		"zero":    {},
		"jpg":     {OutputType: "jpg", OutputQuality: 40},
		"PNG":     {OutputType: "png"},
		"bounds":  {Width: 32, Height: 10000, Long: 32, Short: 10000, Scale: 62500},
		"icc":     {OutputColorSpace: "Display P3.icc"},
		"srgb":    {OutputColorSpace: "sRGB"},
		"skip":    {Preset: "My Preset", Skip: pfc.SkipLegacy},
		"exif":    {SkipEXIFSoftware: []string{"Adobe Photoshop", "GIMP"}},
		"flags":   NewCorrection().WithAutocrop().WithPreserveInputFileName(true).WithComposite(false),
		"quality": {OutputQuality: 100},
	} {
		assert.NoError(t, o.Validate(), name)
	}
}

func TestValidateReportsEveryField(t *testing.T) {
	t.Parallel()
	o := &CorrectionOptions{
		Preset: "a\nb", OutputType: "gif", OutputQuality: 39, OutputColorSpace: "../x.icc",
		Width: 31, Height: 10001, Long: -1, Short: 5, Scale: 62500 + 1,
		Skip: "photos", SkipEXIFSoftware: []string{"a,b"},
	}
	err := o.Validate()
	require.Error(t, err)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	var ve *pfc.ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, []string{"preset", "outputType", "outputQuality", "outputColorSpace",
		"width", "height", "long", "short", "scale", "skip", "skip-exif-software"}, ve.Fields())
	assert.True(t, strings.HasPrefix(err.Error(), "pfc: invalid parameters: preset:"))
}

func TestValidateSingleFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		field string
		o     CorrectionOptions
	}{
		{"outputQuality", CorrectionOptions{OutputQuality: 101}},
		{"outputQuality", CorrectionOptions{OutputQuality: -5}},
		{"scale", CorrectionOptions{Scale: -1}},
		{"outputColorSpace", CorrectionOptions{OutputColorSpace: ".hidden.icc"}},
		{"outputColorSpace", CorrectionOptions{OutputColorSpace: `c:\x.icc`}},
		{"skip-exif-software", CorrectionOptions{SkipEXIFSoftware: []string{" "}}},
		{"outputType", CorrectionOptions{OutputType: "tiff"}},
	} {
		var ve *pfc.ValidationError
		require.ErrorAs(t, tc.o.Validate(), &ve, tc.field)
		assert.Equal(t, []string{tc.field}, ve.Fields())
	}
}

func TestStrictRefusesIgnoredParameters(t *testing.T) {
	t.Parallel()
	o := NewCorrection().WithSkip(pfc.SkipNone).WithOutput(pfc.OutputPNG, 80)
	o.Width, o.Scale = 100, 50
	require.NoError(t, o.Validate())
	var ve *pfc.ValidationError
	require.ErrorAs(t, o.WithStrict().Validate(), &ve)
	assert.Equal(t, []string{"outputQuality", "scale", "skip"}, ve.Fields())
	assert.Contains(t, ve.Error(), "would be ignored (strict mode)")
}

func TestQueryEncoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    *CorrectionOptions
		want string
	}{
		{"nil", nil, ""},
		{"zero", NewCorrection(), ""},
		{"preset with spaces", NewCorrection().WithPreset("School and Sports"), "preset=School%20and%20Sports"},
		{"output", NewCorrection().WithOutput(pfc.OutputJPEG, 85).WithColorSpace(ColorSpaceSRGB),
			"outputColorSpace=srgb&outputQuality=85&outputType=JPEG"},
		{"hyphenated exif", NewCorrection().WithSkipEXIFSoftware("Adobe Photoshop", "GIMP"),
			"skip-exif-software=Adobe%20Photoshop%2CGIMP"},
		{"exif off", NewCorrection().WithSkipEXIFSoftware(), "skip-exif-software="},
		{"explicit false", NewCorrection().WithPreserveInputFileName(false).WithComposite(false),
			"enableComposite=false&preserveInputFileName=false"},
		{"booleans", NewCorrection().WithAutocrop().WithPreserveInputFileName(true).WithSkip(pfc.SkipClipart).WithPreset("P"),
			"autocrop=true&preserveInputFileName=true&preset=P&skip=clipart"},
		{"resize setter clears others", NewCorrection().WithWidth(100).WithScale(50), "scale=50"},
		{"sizes", &CorrectionOptions{Width: 100, Height: 200, Long: 300, Short: 400},
			"height=200&long=300&short=400&width=100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.o.Query()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestQueryRefusesInvalidOptions(t *testing.T) {
	t.Parallel()
	_, err := NewCorrection().WithOutput(pfc.OutputJPEG, 10).Query()
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestParameterNamesMatchTags(t *testing.T) {
	t.Parallel()
	// Every tagged field set to a valid value of its table entry: the
	// encoding must name exactly the container's parameters of the table.
	o := &CorrectionOptions{}
	paramtest.Fill(t, pfcparams.Container, o)
	v, err := o.Values()
	require.NoError(t, err)
	var keys []string
	for k := range v {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, pfcparams.Names(pfcparams.Container), keys, "every parameter of the table has a field")
	assert.ElementsMatch(t, parameterNames(), keys)
}

func TestValidateImageKey(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 255, maxImageKeyLength, "the bound ValidateImageKey and Direct.PutFile document")
	for key, ok := range map[string]bool{
		"0123abcd.jpg": true, "holiday photo.jpg": true, "é.png": true,
		"": false, "a/b": false, `a\b`: false, "..": false, "a..b": false, ".hidden": false,
		"a\x00b": false, "a\nb": false, "\xff": false, strings.Repeat("k", maxImageKeyLength+1): false,
		strings.Repeat("k", maxImageKeyLength): true,
	} {
		err := ValidateImageKey(key)
		if ok {
			assert.NoError(t, err, "%q", key)
			continue
		}
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve, "%q", key)
		assert.Equal(t, []string{"imageKey"}, ve.Fields())
	}
}
