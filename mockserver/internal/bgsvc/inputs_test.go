package bgsvc

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

// TestGreyPaletteAnd16BitInputsAreConverted: JPEG and PNG inputs outside
// 8-bit RGB(A) (grey, a palette, 16 bits), which the API documentation
// does not list, are accepted like the other mocks do and give an 8-bit
// RGBA PNG.
func TestGreyPaletteAnd16BitInputsAreConverted(t *testing.T) {
	t.Parallel()
	const w, h = 48, 40
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(gray.Rect)
	rgb64 := image.NewNRGBA64(gray.Rect)
	pal := image.NewPaletted(gray.Rect, palette.Plan9)
	for y := range h {
		for x := range w {
			v := uint8(200)
			if x > w/3 && x < 2*w/3 && y > h/4 && y < 3*h/4 {
				v = 30
			}
			gray.SetGray(x, y, color.Gray{Y: v})
			gray16.SetGray16(x, y, color.Gray16{Y: uint16(v) * 257})
			rgb64.SetNRGBA64(x, y, color.NRGBA64{R: uint16(v) * 257, G: 30000, B: 1000, A: 0xffff})
			pal.SetColorIndex(x, y, v)
		}
	}
	inputs := map[string]image.Image{"grey": gray, "grey16": gray16, "rgba64": rgb64, "palette": pal}
	s, _ := newService(t, nil)
	ids := map[string]string{}
	for name, img := range inputs {
		var b bytes.Buffer
		require.NoError(t, png.Encode(&b, img))
		ids[name+".png"] = submit(t, s, b.Bytes(), SubmitRequest{FileName: name + ".png"}).ProcessID
	}
	var gj bytes.Buffer
	require.NoError(t, jpeg.Encode(&gj, gray, nil))
	ids["grey.jpg"] = submit(t, s, gj.Bytes(), SubmitRequest{FileName: "grey.jpg"}).ProcessID
	waitIdle(t, s)
	for name, id := range ids {
		r := check(t, s, id)
		require.Equal(t, StatusCompleted, r.Status, "%s: %s", name, r.Error)
		out := download(t, s, id)
		assert.Equal(t, color.NRGBAModel, out.ColorModel(), name)
		assert.Equal(t, gray.Rect, out.Bounds(), name)
	}
}
