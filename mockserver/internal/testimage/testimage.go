// Package testimage makes the small images the mocks' tests feed them.
package testimage

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/jpeg"
	"image/png"
)

// ColourModels returns a w×h picture, whose grey level at (x, y) is
// level(x, y), encoded in the colour models outside 8-bit RGB(A) that the
// API documentation does not list but the mocks accept (grey to RGB, a
// palette to RGB(A), 16 bits to 8), keyed by a file name: grey.jpg,
// grey.png, grey16.png, rgba64.png and palette.png.
func ColourModels(w, h int, level func(x, y int) uint8) (map[string][]byte, error) {
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(gray.Rect)
	rgb64 := image.NewNRGBA64(gray.Rect)
	pal := image.NewPaletted(gray.Rect, palette.Plan9)
	for y := range h {
		for x := range w {
			v := level(x, y)
			gray.SetGray(x, y, color.Gray{Y: v})
			gray16.SetGray16(x, y, color.Gray16{Y: uint16(v) * 257})
			rgb64.SetNRGBA64(x, y, color.NRGBA64{R: uint16(v) * 257, G: 30000, B: uint16(x) * 1000, A: 0xffff})
			pal.SetColorIndex(x, y, v)
		}
	}
	out := map[string][]byte{}
	for name, img := range map[string]image.Image{"grey.png": gray, "grey16.png": gray16, "rgba64.png": rgb64, "palette.png": pal} {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return nil, err
		}
		out[name] = b.Bytes()
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, gray, nil); err != nil {
		return nil, err
	}
	out["grey.jpg"] = b.Bytes()
	return out, nil
}
