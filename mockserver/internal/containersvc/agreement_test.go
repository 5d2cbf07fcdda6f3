package containersvc

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// The client's local validation and the mock's parser must agree: what
// the client sends is accepted, what it refuses the mock refuses too, and
// both pick the same resize parameter.
func TestClientAndMockAgree(t *testing.T) {
	t.Parallel()
	assert.Equal(t, pfcparams.MustBind(pfcparams.Container, pfccontainer.CorrectionOptions{}).Names(), CorrectParams())
	c := Config{}
	require.NoError(t, c.check())
	for _, o := range []*pfccontainer.CorrectionOptions{
		{},
		{Preset: "School and Sports", OutputType: "jpg", OutputQuality: 40, OutputColorSpace: "sRGB"},
		{OutputType: pfc.OutputPNG, Width: 32, Height: 10000, Long: 500, Short: 400, Scale: 1000},
		{Height: 100, Scale: 1},
		{Short: 32, Scale: 10},
		{Autocrop: true, Skip: pfc.SkipLegacy, SkipEXIFSoftware: []string{"Adobe Photoshop", "GIMP"}},
		pfccontainer.NewCorrection().WithSkipEXIFSoftware().WithPreserveInputFileName(false).WithComposite(true),
		{OutputColorSpace: "Display P3.icc"},
		// Invalid ones.
		{OutputQuality: 39},
		{OutputQuality: 101},
		{Width: 31},
		{Short: 10001},
		{Scale: 62500 + 1},
		{OutputType: "gif"},
		{Skip: "photos"},
		{OutputColorSpace: "../x.icc"},
	} {
		clientErr := o.Validate()
		q := rawValues(o)
		req, herr := c.parseRequest(q)
		assert.Equal(t, clientErr == nil, herr == nil, "client %v, mock %v for %+v", clientErr, herr, *o)
		if clientErr == nil && herr == nil {
			assert.Equal(t, string(o.Plan().Resize), req.ResizeParam, "%+v", *o)
			assert.Equal(t, o.Plan().ResizeValue, req.ResizeValue, "%+v", *o)
		}
	}
}

// rawValues encodes o without the client's validation, as a careless
// client would send it.
func rawValues(o *pfccontainer.CorrectionOptions) url.Values {
	strict := *o
	strict.Strict = false
	v, err := strict.Values()
	if err == nil {
		return v
	}
	// Validation refused it: send the fields by hand.
	v = url.Values{}
	set := func(k string, n int) {
		if n != 0 {
			v.Set(k, itoa(int64(n)))
		}
	}
	if o.OutputType != "" {
		v.Set("outputType", string(o.OutputType))
	}
	if o.OutputColorSpace != "" {
		v.Set("outputColorSpace", o.OutputColorSpace)
	}
	if o.Skip != "" {
		v.Set("skip", string(o.Skip))
	}
	set("outputQuality", o.OutputQuality)
	set("width", o.Width)
	set("short", o.Short)
	set("scale", o.Scale)
	return v
}
