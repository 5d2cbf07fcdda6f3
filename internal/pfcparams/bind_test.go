package pfcparams_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// containerOpts has every container parameter: pfccontainer's options
// themselves, so that a new parameter needs no field here.
type containerOpts = pfccontainer.CorrectionOptions

func TestBindAndEncode(t *testing.T) {
	t.Parallel()
	b, err := pfcparams.Bind(pfcparams.Container, &containerOpts{})
	require.NoError(t, err)
	assert.ElementsMatch(t, pfcparams.Names(pfcparams.Container), b.Names())
	no := false
	o := &containerOpts{OutputType: "jpg", Width: 40, SkipEXIFSoftware: []string{}, EnableComposite: &no, Autocrop: true}
	q := url.Values{}
	b.Encode(o, q)
	assert.Equal(t, "autocrop=true&enableComposite=false&outputType=JPEG&skip-exif-software=&width=40", q.Encode())
	q = url.Values{}
	b.Encode(&containerOpts{OutputType: pfcparams.OutputOriginal, SkipEXIFSoftware: []string{"a", "b"}}, q)
	assert.Equal(t, "skip-exif-software=a%2Cb", q.Encode(), "original is the container's default: not sent")
	assert.Empty(t, b.Check(o, true))
	probs := b.Check(&containerOpts{OutputType: "gif", OutputQuality: 39, Width: 31, Scale: pfcparams.MaxScale + 1,
		SkipEXIFSoftware: []string{"x,y"}, OutputColorSpace: "../p.icc"}, true)
	var names []string
	for _, p := range probs {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"outputType", "outputQuality", "outputColorSpace", "width", "scale", "skip-exif-software"}, names)
	assert.Equal(t, "must be between 32 and 10000 pixels, got 31", probs[3].Message)
	assert.Equal(t, "must be a percentage between 1 and 62500, got 62501", probs[4].Message)
}

func TestBindRefusesMismatches(t *testing.T) {
	t.Parallel()
	for name, sample := range map[string]any{
		"unknown name": struct {
			X int `url:"nope"`
		}{},
		"other API's parameter": struct {
			X string `url:"fileKey"`
		}{},
		"wrong type": struct {
			Preset int `url:"preset"`
		}{},
		"default-true bool not a pointer": struct {
			EnableComposite bool `url:"enableComposite"`
		}{},
		"missing fields": struct {
			Preset string `url:"preset"`
		}{},
	} {
		_, err := pfcparams.Bind(pfcparams.Container, sample)
		assert.Error(t, err, name)
	}
	assert.Panics(t, func() { pfcparams.MustBind(pfcparams.Container, struct{}{}) })
}

func TestTableIsWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range pfcparams.Table {
		assert.False(t, seen[p.Name], "%s declared twice", p.Name)
		seen[p.Name] = true
		assert.NotZero(t, p.APIs, p.Name)
		assert.NotEmpty(t, p.Doc, p.Name)
		if p.Kind == pfcparams.Int {
			assert.Less(t, p.Min, p.Max, p.Name)
		}
		if p.Kind == pfcparams.Enum {
			assert.NotEmpty(t, p.Values, p.Name)
			for api, w := range p.Wire {
				assert.Len(t, w, len(p.Values), "%s %s", p.Name, api)
			}
		}
	}
	assert.Equal(t, len(pfcparams.Table), pfcparams.Index("nope"))
	_, ok := pfcparams.Lookup("nope")
	assert.False(t, ok)
}
