package matting

import (
	"context"
	"image"
	"sync"
	"testing"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

var (
	bigOnce  sync.Once
	bigImg   *image.NRGBA
	bigTruth *image.Alpha
)

// bigProduct is a 12-megapixel synthetic product shot, built once.
func bigProduct() (*image.NRGBA, *image.Alpha) {
	bigOnce.Do(func() { bigImg, bigTruth = synth.Product(3, 4000, 3000, synth.Gradient) })
	return bigImg, bigTruth
}

// BenchmarkRemoveBackground12MP measures general-mode removal of a
// 4000×3000 product shot (target: ≤ 1.5 s on 2 cores).
func BenchmarkRemoveBackground12MP(b *testing.B) {
	img, truth := bigProduct()
	c := NewCPU()
	b.ResetTimer()
	var m *Matte
	for i := 0; i < b.N; i++ {
		var err error
		m, err = c.RemoveBackground(context.Background(), img, Options{Mode: ModeGeneral})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(synth.IoU(m.Alpha, truth, 128), "IoU")
	b.ReportMetric(synth.MAE(m.Alpha, truth), "MAE")
}

// BenchmarkRemoveBackgroundPortrait12MP measures portrait mode on a
// 4000×3000 synthetic portrait with its face box.
func BenchmarkRemoveBackgroundPortrait12MP(b *testing.B) {
	img, truth, face := synth.Portrait(3, 4000, 3000)
	c := NewCPU()
	o := Options{Mode: ModePortrait, Faces: []image.Rectangle{face}, SpillReduction: true}
	b.ResetTimer()
	var m *Matte
	for i := 0; i < b.N; i++ {
		var err error
		if m, err = c.RemoveBackground(context.Background(), img, o); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(synth.IoU(m.Alpha, truth, 128), "IoU")
	b.ReportMetric(synth.MAE(m.Alpha, truth), "MAE")
}

// BenchmarkComposite12MP measures compositing a 12 MP matte onto an
// uploaded image (cover-fit from 1920×1080) with a soft shadow.
func BenchmarkComposite12MP(b *testing.B) {
	img, truth := bigProduct()
	m := &Matte{Alpha: truth}
	bg := Generate("beach", 1920, 1080)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Composite(img, m, Background{Kind: Image, Image: bg, Shadow: ShadowSoft})
	}
}

// BenchmarkGenerate12MP measures the generated-background stand-in.
func BenchmarkGenerate12MP(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Generate("sunset over the sea", 4000, 3000)
	}
}
