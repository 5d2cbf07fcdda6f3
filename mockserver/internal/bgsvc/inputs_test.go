package bgsvc

import (
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
)

// TestGreyPaletteAnd16BitInputsAreConverted: JPEG and PNG inputs outside
// 8-bit RGB(A) (grey, a palette, 16 bits), which the API documentation
// does not list, are accepted like the other mocks do and give an 8-bit
// RGBA PNG.
func TestGreyPaletteAnd16BitInputsAreConverted(t *testing.T) {
	t.Parallel()
	const w, h = 48, 40
	// A dark block on a light ground, a subject the matting can find.
	inputs, err := testimage.ColourModels(w, h, func(x, y int) uint8 {
		if x > w/3 && x < 2*w/3 && y > h/4 && y < 3*h/4 {
			return 30
		}
		return 200
	})
	require.NoError(t, err)
	s, _ := newService(t, nil)
	ids := map[string]string{}
	for name, data := range inputs {
		ids[name] = submit(t, s, data, SubmitRequest{FileName: name}).ProcessID
	}
	waitIdle(t, s)
	for name, id := range ids {
		r := check(t, s, id)
		require.Equal(t, StatusCompleted, r.Status, "%s: %s", name, r.Error)
		out := download(t, s, id)
		assert.Equal(t, color.NRGBAModel, out.ColorModel(), name)
		assert.Equal(t, image.Rect(0, 0, w, h), out.Bounds(), name)
	}
}
