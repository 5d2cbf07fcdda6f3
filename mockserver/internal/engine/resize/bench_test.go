package resize

import (
	"image"
	"math/rand"
	"testing"
)

// naturalImage makes a w x h opaque image of smooth gradients plus noise.
func naturalImage(w, h int, seed int64) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	rnd := rand.New(rand.NewSource(seed))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*m.Stride + x*4
			n := rnd.Intn(24) - 12
			m.Pix[i] = clamp8(x*255/w + n)
			m.Pix[i+1] = clamp8(y*255/h + n)
			m.Pix[i+2] = clamp8((x+y)*255/(w+h) - n)
			m.Pix[i+3] = 255
		}
	}
	return m
}

func clamp8(v int) uint8 {
	return uint8(min(max(v, 0), 255))
}

func BenchmarkResize12MPTo1200(b *testing.B) {
	src := naturalImage(4000, 3000, 1)
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		Resize(src, 1200, 900, Lanczos3)
	}
	reportCPU(b, cpu)
}

func BenchmarkResize12MPThumbnail(b *testing.B) {
	src := naturalImage(4000, 3000, 1)
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		Resize(src, 160, 120, Lanczos3)
	}
	reportCPU(b, cpu)
}

func BenchmarkResizeUpscale2x(b *testing.B) {
	src := naturalImage(1200, 900, 1)
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		Resize(src, 2400, 1800, Lanczos3)
	}
	reportCPU(b, cpu)
}

func BenchmarkResizeAlpha12MPTo1200(b *testing.B) {
	src := naturalImage(4000, 3000, 1)
	for i := 3; i < len(src.Pix); i += 16 {
		src.Pix[i] = 128
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		Resize(src, 1200, 900, Lanczos3)
	}
	reportCPU(b, cpu)
}
