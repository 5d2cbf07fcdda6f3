package containersvc

import (
	"bytes"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
)

// TestGreyPaletteAnd16BitInputsAreConverted: each is corrected and
// written as an 8-bit RGB(A) PNG, or a three-component JPEG.
func TestGreyPaletteAnd16BitInputsAreConverted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for name, data := range colourModelInputs(t) {
		f.placeInput(t, name, data)
		img, err := png.Decode(bytes.NewReader(f.correctedBytes(t, name, "outputType=png")))
		require.NoError(t, err, name)
		assert.Contains(t, []color.Model{color.RGBAModel, color.NRGBAModel}, img.ColorModel(), name)
		img, err = jpeg.Decode(bytes.NewReader(f.correctedBytes(t, name, "outputType=jpg")))
		require.NoError(t, err, name)
		assert.Equal(t, color.YCbCrModel, img.ColorModel(), name)
	}
}

// colourModelInputs are a gradient in the colour models outside 8-bit
// RGB(A) (testimage.ColourModels), keyed by file name.
func colourModelInputs(t *testing.T) map[string][]byte {
	in, err := testimage.ColourModels(48, 40, func(x, y int) uint8 { return uint8(40 + 3*x + 2*y) })
	require.NoError(t, err)
	return in
}
