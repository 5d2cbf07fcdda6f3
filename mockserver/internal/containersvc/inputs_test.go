package containersvc

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// colourModelInputs are JPEG and PNG inputs outside 8-bit RGB(A), which
// the API documentation does not list; the three mocks accept them and
// convert them on decode (grey to RGB, a palette to RGB(A), 16 bits to 8).
func colourModelInputs(t *testing.T) map[string][]byte {
	const w, h = 48, 40
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(gray.Rect)
	rgb64 := image.NewNRGBA64(gray.Rect)
	pal := image.NewPaletted(gray.Rect, palette.Plan9)
	for y := range h {
		for x := range w {
			v := uint8(40 + 3*x + 2*y)
			gray.SetGray(x, y, color.Gray{Y: v})
			gray16.SetGray16(x, y, color.Gray16{Y: uint16(v) * 257})
			rgb64.SetNRGBA64(x, y, color.NRGBA64{R: uint16(v) * 250, G: 30000, B: uint16(x) * 1000, A: 0xffff})
			pal.SetColorIndex(x, y, uint8((x+y)%256))
		}
	}
	enc := func(img image.Image) []byte {
		var b bytes.Buffer
		require.NoError(t, png.Encode(&b, img))
		return b.Bytes()
	}
	var gj bytes.Buffer
	require.NoError(t, jpeg.Encode(&gj, gray, nil))
	return map[string][]byte{
		"grey.jpg": gj.Bytes(), "grey.png": enc(gray), "grey16.png": enc(gray16),
		"rgba64.png": enc(rgb64), "palette.png": enc(pal),
	}
}

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
