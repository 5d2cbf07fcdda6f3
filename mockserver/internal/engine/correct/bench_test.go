package correct

import (
	"image"
	"sync"
	"testing"
)

var (
	bench12Once sync.Once
	bench12     *image.NRGBA
)

// image12MP is a 4000×3000 photo-like image with a warm cast, made once.
func image12MP() *image.NRGBA {
	bench12Once.Do(func() {
		bench12 = castImage(naturalImage(4000, 3000, 77, 120, 100, 128, 210), [3]float64{1.1, 1, 0.85})
	})
	return bench12
}

func benchApply(b *testing.B, p Params) {
	src := image12MP()
	img := cloneImage(src)
	b.SetBytes(int64(len(src.Pix)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(img.Pix, src.Pix)
		b.StartTimer()
		Apply(img, p)
	}
}

// BenchmarkApply12MP: the correction pass alone on 12 MP; goal ≤ 250 ms on
// two cores.
func BenchmarkApply12MP(b *testing.B) {
	u, _ := Builtin(PresetUniversal)
	ss, _ := Builtin(PresetSchoolAndSports)
	b.Run("Universal", func(b *testing.B) { benchApply(b, u.Default) })
	b.Run("SchoolAndSportsPortrait", func(b *testing.B) { benchApply(b, ss.For(ScenePortrait)) })
	b.Run("ToneOnly", func(b *testing.B) {
		p := u.Default
		p.Vibrance, p.Saturation = 0, 0
		benchApply(b, p)
	})
}

// BenchmarkAuto12MP: scene detection plus correction.
func BenchmarkAuto12MP(b *testing.B) {
	src := image12MP()
	img := cloneImage(src)
	g, _ := Builtin(PresetUniversal)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(img.Pix, src.Pix)
		b.StartTimer()
		Auto(img, g, 0)
	}
}

// BenchmarkDetectScene12MP: goal ≤ 30 ms.
func BenchmarkDetectScene12MP(b *testing.B) {
	img := image12MP()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		DetectScene(img, 0)
	}
}

func BenchmarkIsClipart12MP(b *testing.B) {
	img := image12MP()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		IsClipart(img)
	}
}

func BenchmarkEstimateNoise12MP(b *testing.B) {
	img := image12MP()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		EstimateNoise(img)
	}
}
