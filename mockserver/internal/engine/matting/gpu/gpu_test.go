//go:build cuda && linux

package gpu

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// These tests need a CUDA GPU and its driver; they skip, saying why, where
// libcuda.so.1 does not load or reports no device. See the package
// documentation for building them here and running them on a GPU machine.

// openGPU returns a GPU engine closed at the end of the test, or skips.
func openGPU(tb testing.TB) *Engine {
	tb.Helper()
	e, err := New(Options{})
	if errors.Is(err, ErrUnavailable) {
		tb.Skipf("skipping: needs a CUDA GPU: %v", err)
	}
	require.NoError(tb, err)
	tb.Cleanup(func() { assert.NoError(tb, e.Close()) })
	tb.Logf("GPU: %s", e.Device())
	return e
}

// Parity bars against the CPU engine, per image.
const (
	parityMaxDiff  = 2   // /255, any pixel
	parityMeanDiff = 0.5 // /255, mean over the image
	// The CPU engine's quality bars (matting's quality tests).
	productMinIoU  = 0.97
	productMaxMAE  = 0.02
	portraitMinIoU = 0.90
	portraitMaxMAE = 0.05
)

// parityCase is one image of the synthetic composite set.
type parityCase struct {
	name   string
	img    *image.NRGBA
	truth  *image.Alpha
	o      matting.Options
	minIoU float64 // 0: no quality bar (portrait without face box)
	maxMAE float64
}

// parityCases returns the set, generated once per test binary (its 22
// images take seconds to render) and shared by the parity tests, which
// must not modify it.
var parityCases = sync.OnceValue(buildParityCases)

func buildParityCases() []parityCase {
	var cs []parityCase
	for i, st := range []synth.BackgroundStyle{synth.Plain, synth.Plain, synth.Plain, synth.Plain, synth.Gradient, synth.Gradient, synth.Gradient, synth.Gradient} {
		seed := int64(i + 1)
		img, truth := synth.Product(seed, 640, 480, st)
		o := matting.Options{SpillReduction: seed%2 == 0, Preprocess: seed%3 == 0}
		cs = append(cs, parityCase{fmt.Sprintf("product%d", seed), img, truth, o, productMinIoU, productMaxMAE})
	}
	for seed := int64(1); seed <= 6; seed++ {
		img, truth, face := synth.Portrait(seed, 640, 480)
		cs = append(cs,
			parityCase{fmt.Sprintf("portrait%d", seed), img, truth,
				matting.Options{Mode: matting.ModePortrait, Faces: []image.Rectangle{face}, SpillReduction: seed%2 == 1},
				portraitMinIoU, portraitMaxMAE},
			parityCase{fmt.Sprintf("portrait%d_noface", seed), img, truth,
				matting.Options{Mode: matting.ModePortrait}, 0, 0})
	}
	// Reduction factors above 1 (the analysis image is box-reduced).
	big, bigTruth := synth.Product(2, 2400, 1800, synth.Gradient)
	cs = append(cs, parityCase{"product2_2400x1800_spill", big, bigTruth, matting.Options{SpillReduction: true}, productMinIoU, productMaxMAE})
	bp, bpTruth, bpFace := synth.Portrait(4, 1600, 1200)
	cs = append(cs, parityCase{"portrait4_1600x1200", bp, bpTruth,
		matting.Options{Mode: matting.ModePortrait, Faces: []image.Rectangle{bpFace}, SpillReduction: true}, portraitMinIoU, portraitMaxMAE})
	return cs
}

// cpuMattes holds the CPU engine's matte of each parity case by name,
// computed once (the engine is deterministic).
var cpuMattes sync.Map // name → func() (*matting.Matte, error)

// cpuMatte returns the CPU engine's matte of c, computed once per test
// binary.
func cpuMatte(c parityCase) (*matting.Matte, error) {
	f, _ := cpuMattes.LoadOrStore(c.name, sync.OnceValues(func() (*matting.Matte, error) {
		return matting.NewCPU().RemoveBackground(context.Background(), c.img, c.o)
	}))
	return f.(func() (*matting.Matte, error))()
}

// alphaDiff returns the largest and the mean absolute difference.
// assertSameMatte asserts that got's alpha and spill-corrected foreground
// equal want's (|Δ| 0).
func assertSameMatte(t *testing.T, name string, want, got *matting.Matte) {
	t.Helper()
	maxD, _ := alphaDiff(want.Alpha.Pix, got.Alpha.Pix)
	assert.Zero(t, maxD, "%s: alpha max |Δ|", name)
	if want.Foreground != nil {
		require.NotNil(t, got.Foreground, name)
		fMax, _ := alphaDiff(want.Foreground.Pix, got.Foreground.Pix)
		assert.Zero(t, fMax, "%s: foreground max |Δ|", name)
	}
}

func alphaDiff(a, b []uint8) (maxD int, mean float64) {
	var sum int
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < 0 {
			d = -d
		}
		sum += d
		maxD = max(maxD, d)
	}
	return maxD, float64(sum) / float64(len(a))
}

func TestGPUParity(t *testing.T) { checkParity(t, openGPU(t)) }

// checkParity compares e with the CPU engine over the synthetic composite
// set.
func checkParity(t *testing.T, e matting.Remover) {
	ctx := context.Background()
	for _, c := range parityCases() {
		t.Run(c.name, func(t *testing.T) {
			want, err := cpuMatte(c)
			require.NoError(t, err)
			got, err := e.RemoveBackground(ctx, c.img, c.o)
			require.NoError(t, err)
			require.Equal(t, want.Alpha.Rect, got.Alpha.Rect)
			maxD, mean := alphaDiff(want.Alpha.Pix, got.Alpha.Pix)
			iou, mae := synth.IoU(got.Alpha, c.truth, 128), synth.MAE(got.Alpha, c.truth)
			t.Logf("alpha vs CPU: max |Δ| %d/255, mean %.4f/255; IoU %.4f MAE %.4f (CPU IoU %.4f)",
				maxD, mean, iou, mae, synth.IoU(want.Alpha, c.truth, 128))
			assert.LessOrEqual(t, maxD, parityMaxDiff)
			assert.LessOrEqual(t, mean, parityMeanDiff)
			if c.minIoU > 0 {
				assert.GreaterOrEqual(t, iou, c.minIoU)
				assert.LessOrEqual(t, mae, c.maxMAE)
			}
			require.Equal(t, want.Foreground != nil, got.Foreground != nil)
			if want.Foreground != nil {
				fMax, fMean := alphaDiff(want.Foreground.Pix, got.Foreground.Pix)
				t.Logf("foreground vs CPU: max |Δ| %d/255, mean %.4f/255", fMax, fMean)
			}
		})
	}
}

func TestGPUComposite(t *testing.T) { checkComposite(t, openGPU(t)) }

func TestGPURemoveAndComposite(t *testing.T) {
	e := openGPU(t)
	checkRemoveAndComposite(t, e)
	checkConcurrentRemoveAndComposite(t, e, 8)
}

func TestGPUConcurrentRemovals(t *testing.T) {
	e := openGPU(t)
	img, _ := synth.Product(7, 640, 480, synth.Gradient)
	want, err := e.RemoveBackground(context.Background(), img, matting.Options{SpillReduction: true})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.RemoveBackground(context.Background(), img, matting.Options{SpillReduction: true})
			if assert.NoError(t, err) {
				assert.Equal(t, want.Alpha.Pix, got.Alpha.Pix, "deterministic")
				assert.Equal(t, want.Foreground.Pix, got.Foreground.Pix)
			}
		}()
	}
	wg.Wait()
}

var (
	bigOnce sync.Once
	bigImg  *image.NRGBA
)

// bigProduct is the 12-megapixel synthetic product shot of matting's
// BenchmarkRemoveBackground12MP.
func bigProduct() *image.NRGBA {
	bigOnce.Do(func() { bigImg, _ = synth.Product(3, 4000, 3000, synth.Gradient) })
	return bigImg
}

// benchEndToEnd removes the background of the 12 MP image and composites
// it on transparency, per iteration: decoded image in, matte and
// composite out.
func benchEndToEnd(b *testing.B, r matting.Remover) {
	img := bigProduct()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// as the mock servers call it: one call where the engine can
		if _, _, err := matting.RemoveAndComposite(ctx, r, img, matting.Options{}, matting.Background{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(img.Rect.Dx()*img.Rect.Dy())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MP/s")
}

// BenchmarkGPU12MP is the GPU engine end to end at 12 MP.
func BenchmarkGPU12MP(b *testing.B) {
	e := openGPU(b)
	// warm up: JIT compilation of the PTX happened in New; the first
	// removal fills the buffer pool
	if _, err := e.RemoveBackground(context.Background(), bigProduct(), matting.Options{}); err != nil {
		b.Fatal(err)
	}
	benchEndToEnd(b, e)
}

// BenchmarkCPU12MP is the CPU engine end to end at 12 MP, the reference of
// the speed goal (run it with GOMAXPROCS=2 and with all cores). It skips
// with the GPU benchmark, so that both run on the same machine.
func BenchmarkCPU12MP(b *testing.B) {
	openGPU(b)
	benchEndToEnd(b, matting.NewCPU())
}
