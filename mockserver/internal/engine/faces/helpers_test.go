package faces

import (
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// astronaut is testdata/astronaut.jpg (see testdata/README.md), decoded
// once per test binary.
var astronaut = sync.OnceValues(func() (*image.NRGBA, error) {
	f, err := os.Open(filepath.Join("testdata", "astronaut.jpg"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := jpeg.Decode(f)
	if err != nil {
		return nil, err
	}
	img := image.NewNRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img, nil
})

// loadAstronaut returns the decoded astronaut photo, a copy of its own
// for each caller.
func loadAstronaut(t testing.TB) *image.NRGBA {
	t.Helper()
	img, err := astronaut()
	require.NoError(t, err)
	return cloneNRGBA(img)
}

// astronautFaces is what a Detector finds on the astronaut photo,
// detected once per test binary: the tests that need the faces to work on
// (crop, glare, red eye) or as the reference to compare with (the
// determinism, concurrency, origin and scaling tests, which run their own
// detections) share it.
var astronautFaces = sync.OnceValues(func() ([]Face, error) {
	img, err := astronaut()
	if err != nil {
		return nil, err
	}
	d, err := NewDetector()
	if err != nil {
		return nil, err
	}
	return d.Detect(cloneNRGBA(img)), nil
})

// detectAstronaut returns astronautFaces, a copy of its own for each
// caller.
func detectAstronaut(t testing.TB) []Face {
	t.Helper()
	faces, err := astronautFaces()
	require.NoError(t, err)
	return slices.Clone(faces)
}

// scaleNearest resizes src to w×h with nearest-neighbour sampling.
func scaleNearest(src *image.NRGBA, w, h int) *image.NRGBA {
	sb := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		sy := sb.Min.Y + y*sb.Dy()/h
		for x := 0; x < w; x++ {
			sx := sb.Min.X + x*sb.Dx()/w
			copy(dst.Pix[dst.PixOffset(x, y):dst.PixOffset(x, y)+4], src.Pix[src.PixOffset(sx, sy):])
		}
	}
	return dst
}

// paintDisk blends c into img over a disk with a 1.5 px soft edge.
func paintDisk(img *image.NRGBA, cx, cy, r float64, c color.NRGBA) {
	for y := int(cy - r - 2); y <= int(cy+r+2); y++ {
		for x := int(cx - r - 2); x <= int(cx+r+2); x++ {
			if !image.Pt(x, y).In(img.Bounds()) {
				continue
			}
			dist := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			a := math.Min(1, math.Max(0, (r+0.75-dist)/1.5))
			if a == 0 {
				continue
			}
			p := img.Pix[img.PixOffset(x, y):]
			for i, v := range []uint8{c.R, c.G, c.B} {
				p[i] = uint8(math.Round(float64(p[i])*(1-a) + float64(v)*a))
			}
		}
	}
}

func fill(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// syntheticFace draws a plain face-like picture on a white backdrop and
// returns it with a hand-made Face: skin oval, dark eyes with irises.
func syntheticFace() (*image.NRGBA, Face) {
	img := image.NewNRGBA(image.Rect(0, 0, 400, 400))
	fill(img, img.Bounds(), color.NRGBA{250, 250, 250, 255})
	skin := color.NRGBA{200, 150, 120, 255}
	for y := 60; y < 340; y++ {
		for x := 80; x < 320; x++ {
			if math.Pow((float64(x)-200)/120, 2)+math.Pow((float64(y)-200)/140, 2) <= 1 {
				img.SetNRGBA(x, y, skin)
			}
		}
	}
	f := Face{
		Box:      image.Rect(100, 100, 300, 300),
		LeftEye:  PointF{X: 165, Y: 185},
		RightEye: PointF{X: 237, Y: 185},
	}
	for _, e := range []PointF{f.LeftEye, f.RightEye} {
		paintDisk(img, e.X, e.Y, 12, color.NRGBA{232, 226, 220, 255}) // brightly lit sclera
		paintDisk(img, e.X, e.Y, 7, color.NRGBA{90, 60, 40, 255})
		paintDisk(img, e.X, e.Y, 3, color.NRGBA{20, 15, 15, 255})
	}
	return img, f
}

func cloneNRGBA(img *image.NRGBA) *image.NRGBA {
	c := *img
	c.Pix = append([]uint8(nil), img.Pix...)
	return &c
}

// copyInto draws src (origin 0,0) into dst at r.
func copyInto(dst *image.NRGBA, r image.Rectangle, src *image.NRGBA) {
	draw.Draw(dst, r, src, src.Bounds().Min, draw.Src)
}
