package matting

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// Quality bars, asserted per image (not on a mean).
const (
	productMinIoU  = 0.97
	productMaxMAE  = 0.02
	portraitMinIoU = 0.90
	portraitMaxMAE = 0.05
	testW, testH   = 640, 480
	iouThreshold   = 128
)

// productSeeds are the fixed product scenes: four on plain and four on
// gradient backdrops (the style is given explicitly, the seed picks the rest).
var productSeeds = []struct {
	seed  int64
	style synth.BackgroundStyle
}{
	{1, synth.Plain}, {2, synth.Plain}, {3, synth.Plain}, {4, synth.Plain},
	{5, synth.Gradient}, {6, synth.Gradient}, {7, synth.Gradient}, {8, synth.Gradient},
}

var portraitSeeds = []int64{1, 2, 3, 4, 5, 6}

// sceneSubset returns s under the build tag heavy without the race
// detector (.ci/run's heavy step, which runs every scene), else only the
// elements at the given indices: the race detector checks the engine's
// goroutines, which are the same on every scene, and a plain go test
// ./... checks the engine on a few scenes where the heavy step holds the
// quality bars on all of them. The subsets take scenes that other tests
// generate anyway (the golden cases, TestPortraitWithoutFaces): one
// product on each backdrop style and two portraits; under the race
// detector, the first of them.
func sceneSubset[T any](s []T, indices ...int) []T {
	switch {
	case heavyTests && !raceEnabled:
		return s
	case raceEnabled:
		indices = indices[:1] // one scene checks the goroutines
	}
	out := make([]T, 0, len(indices))
	for _, i := range indices {
		out = append(out, s[i])
	}
	return out
}

// testProduct returns the synthetic product scene for seed and style at
// the test size, generated once per test binary (several tests share
// them: productScene).
func testProduct(seed int64, style synth.BackgroundStyle) (*image.NRGBA, *image.Alpha) {
	return productScene(seed, testW, testH, style)
}

// testPortrait returns the synthetic portrait for seed at the test size,
// generated once per test binary (several tests share them:
// portraitScene).
func testPortrait(seed int64) (*image.NRGBA, *image.Alpha, image.Rectangle) {
	return portraitScene(seed, testW, testH)
}

func TestProductQuality(t *testing.T) {
	t.Parallel()
	c := NewCPU()
	for _, ps := range sceneSubset(productSeeds, 1, 5) {
		t.Run(fmt.Sprintf("seed%d_style%d", ps.seed, ps.style), func(t *testing.T) {
			t.Parallel()
			img, truth := testProduct(ps.seed, ps.style)
			r, err := c.run(context.Background(), img, Options{Mode: ModeGeneral}, true)
			require.NoError(t, err)
			iou := synth.IoU(r.alpha, truth, iouThreshold)
			mae := synth.MAE(r.alpha, truth)
			rawIoU := synth.IoU(r.unrefined, truth, iouThreshold)
			t.Logf("IoU %.4f MAE %.4f (unrefined IoU %.4f)", iou, mae, rawIoU)
			assert.GreaterOrEqual(t, iou, productMinIoU)
			assert.LessOrEqual(t, mae, productMaxMAE)
			assert.GreaterOrEqual(t, iou, rawIoU, "refinement must not lower IoU")
		})
	}
}

func TestPortraitQuality(t *testing.T) {
	t.Parallel()
	c := NewCPU()
	for _, seed := range sceneSubset(portraitSeeds, 1, 2) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			img, truth, face := testPortrait(seed)
			r, err := c.run(context.Background(), img, Options{Mode: ModePortrait, Faces: []image.Rectangle{face}}, true)
			require.NoError(t, err)
			iou := synth.IoU(r.alpha, truth, iouThreshold)
			mae := synth.MAE(r.alpha, truth)
			rawIoU := synth.IoU(r.unrefined, truth, iouThreshold)
			t.Logf("IoU %.4f MAE %.4f (unrefined IoU %.4f)", iou, mae, rawIoU)
			assert.GreaterOrEqual(t, iou, portraitMinIoU)
			assert.LessOrEqual(t, mae, portraitMaxMAE)
			assert.GreaterOrEqual(t, iou, rawIoU, "refinement must not lower IoU")
		})
	}
}

func TestPreprocessKeepsQuality(t *testing.T) {
	t.Parallel()
	c := NewCPU()
	for _, ps := range sceneSubset(productSeeds[:2], 0) {
		img, truth := testProduct(ps.seed, ps.style)
		m, err := c.RemoveBackground(context.Background(), img, Options{Preprocess: true})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, synth.IoU(m.Alpha, truth, iouThreshold), productMinIoU)
		assert.LessOrEqual(t, synth.MAE(m.Alpha, truth), productMaxMAE)
	}
}

// A portrait without face boxes falls back to the border model with an
// open bottom edge; it must still produce a sane matte.
func TestPortraitWithoutFaces(t *testing.T) {
	t.Parallel()
	img, truth := testProduct(2, synth.Plain)
	m, err := NewCPU().RemoveBackground(context.Background(), img, Options{Mode: ModePortrait})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, synth.IoU(m.Alpha, truth, iouThreshold), productMinIoU)
}

// Spill reduction: a red disc on a saturated green backdrop with soft edges.
// Decontaminated edge colours must be closer to the true red than the
// observed mixed pixels, and opaque interior pixels unchanged.
func TestSpillReduction(t *testing.T) {
	const w, h = 320, 240
	fgc := [3]float64{200, 30, 40}
	bgc := [3]float64{40, 190, 60}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	truth := image.NewAlpha(img.Rect)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := math.Hypot(float64(x)+0.5-160, float64(y)+0.5-120) - 70
			a := math.Max(0, math.Min(1, 0.5-d/3)) // 3-pixel soft edge
			a8 := uint8(math.Round(a * 255))
			aq := float64(a8) / 255
			truth.Pix[y*w+x] = a8
			var px color.NRGBA
			px.A = 255
			px.R = uint8(math.Round(fgc[0]*aq + bgc[0]*(1-aq)))
			px.G = uint8(math.Round(fgc[1]*aq + bgc[1]*(1-aq)))
			px.B = uint8(math.Round(fgc[2]*aq + bgc[2]*(1-aq)))
			img.SetNRGBA(x, y, px)
		}
	}
	m, err := NewCPU().RemoveBackground(context.Background(), img, Options{SpillReduction: true})
	require.NoError(t, err)
	require.NotNil(t, m.Foreground)
	assert.Equal(t, img.Rect, m.Foreground.Rect)
	assert.GreaterOrEqual(t, synth.IoU(m.Alpha, truth, iouThreshold), 0.99)
	var before, after float64
	n := 0
	for i := 0; i < w*h; i++ {
		a := m.Alpha.Pix[i]
		if a < 50 || a > 205 {
			continue
		}
		for c := 0; c < 3; c++ {
			before += math.Abs(float64(img.Pix[4*i+c]) - fgc[c])
			after += math.Abs(float64(m.Foreground.Pix[4*i+c]) - fgc[c])
		}
		n++
	}
	require.Positive(t, n)
	t.Logf("edge pixels %d: mean colour error %.1f → %.1f", n, before/float64(n)/3, after/float64(n)/3)
	assert.Less(t, after, before/3, "spill not removed")
	// interior untouched
	o := img.PixOffset(160, 120)
	assert.Equal(t, img.Pix[o:o+3], m.Foreground.Pix[o:o+3])

	// Without the option there is no foreground.
	m, err = NewCPU().RemoveBackground(context.Background(), img, Options{})
	require.NoError(t, err)
	assert.Nil(t, m.Foreground)
}

// TestWideEvaluation measures quality over many seeds and logs the
// distribution; it only runs when MATTING_EVAL="first,count" is set (for
// example MATTING_EVAL=1000,200), since it takes tens of seconds.
func TestWideEvaluation(t *testing.T) {
	spec := os.Getenv("MATTING_EVAL")
	if spec == "" {
		t.Skip("set MATTING_EVAL=first,count to run")
	}
	var first, count int64
	_, err := fmt.Sscanf(spec, "%d,%d", &first, &count)
	require.NoError(t, err)
	c := NewCPU()
	type stat struct {
		n, below, worse int
		sumIoU, sumMAE  float64
		minIoU, maxMAE  float64
	}
	report := func(name string, s stat) {
		t.Logf("%s: %d images, mean IoU %.4f, min IoU %.4f, mean MAE %.4f, max MAE %.4f, below bar %d, refinement lowered IoU %d",
			name, s.n, s.sumIoU/float64(s.n), s.minIoU, s.sumMAE/float64(s.n), s.maxMAE, s.below, s.worse)
	}
	add := func(s *stat, r *refined, truth *image.Alpha, minIoU, maxMAE float64, label string) {
		iou, mae := synth.IoU(r.alpha, truth, iouThreshold), synth.MAE(r.alpha, truth)
		if s.n == 0 {
			s.minIoU = 1
		}
		s.n++
		s.sumIoU += iou
		s.sumMAE += mae
		s.minIoU = min(s.minIoU, iou)
		s.maxMAE = max(s.maxMAE, mae)
		if iou < minIoU || mae > maxMAE {
			s.below++
			t.Logf("%s below the bar: IoU %.4f MAE %.4f", label, iou, mae)
		}
		if iou < synth.IoU(r.unrefined, truth, iouThreshold) {
			s.worse++
		}
	}
	var ps, qs stat
	for seed := first; seed < first+count; seed++ {
		img, truth := synth.Product(seed, testW, testH, synth.BackgroundStyle(seed%2))
		r, err := c.run(context.Background(), img, Options{}, true)
		require.NoError(t, err)
		add(&ps, r, truth, productMinIoU, productMaxMAE, fmt.Sprintf("product %d", seed))
		pimg, ptruth, face := synth.Portrait(seed, testW, testH)
		r, err = c.run(context.Background(), pimg, Options{Mode: ModePortrait, Faces: []image.Rectangle{face}}, true)
		require.NoError(t, err)
		add(&qs, r, ptruth, portraitMinIoU, portraitMaxMAE, fmt.Sprintf("portrait %d", seed))
	}
	report("products", ps)
	report("portraits", qs)
}
