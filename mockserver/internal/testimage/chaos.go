package testimage

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
)

// Chaos is the i-th input of the chaos tests: a 48×40 JPEG (quality 90)
// whose pixels vary with i, so that every job has its own output.
func Chaos(i int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, 48, 40))
	for y := range 40 {
		for x := range 48 {
			img.Set(x, y, color.NRGBA{uint8(x*5 + i), uint8(y*6 + i/256), uint8(i * 7), 255})
		}
	}
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	return buf.Bytes(), err
}
