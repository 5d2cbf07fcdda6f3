package faces

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchImage12MP is a 4000×3000 picture holding the astronaut scaled to
// 3000×3000 on a grey canvas.
func benchImage12MP(b testing.TB) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 4000, 3000))
	fill(img, img.Bounds(), color.NRGBA{128, 128, 128, 255})
	face := scaleNearest(loadAstronaut(b), 3000, 3000)
	draw.Draw(img, image.Rect(500, 0, 3500, 3000), face, image.Point{}, draw.Src)
	return img
}

func benchDetect(b *testing.B, img *image.NRGBA) {
	d := newDetector(b)
	require.Len(b, d.Detect(img), 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d.Detect(img)
	}
}

// BenchmarkDetect1024 is detection on a 1024×1024 photo (no downscale).
// Goal: ≤ 100 ms on 2 cores.
func BenchmarkDetect1024(b *testing.B) {
	benchDetect(b, scaleNearest(loadAstronaut(b), 1024, 1024))
}

// BenchmarkDetect12MP is detection on a 4000×3000 image (downscaled to
// 1024×768 first).
func BenchmarkDetect12MP(b *testing.B) {
	benchDetect(b, benchImage12MP(b))
}

func BenchmarkRemoveGlare12MP(b *testing.B) {
	img := benchImage12MP(b)
	faces := newDetector(b).Detect(img)
	require.Len(b, faces, 1)
	spots, r := glareSpots(faces[0])
	for _, s := range spots {
		paintDisk(img, s.X, s.Y, r, color.NRGBA{252, 252, 250, 255})
	}
	work := cloneNRGBA(img)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		copy(work.Pix, img.Pix)
		b.StartTimer()
		if !RemoveGlare(work, faces) {
			b.Fatal("no glare found")
		}
	}
}
