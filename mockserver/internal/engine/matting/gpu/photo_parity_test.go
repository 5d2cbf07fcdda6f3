//go:build cuda && linux

package gpu

import (
	"context"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/draw"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// photoMinIoU is the bar on a photograph's matte, which has no ground
// truth: its IoU (at 128) with the CPU engine's, whose own is 1, is
// within 0.001 of it.
const photoMinIoU = 0.999

// photoDir holds the photographs of the parity check: the faces test
// data (a real portrait, public domain; see its README).
var photoDir = filepath.Join("..", "..", "faces", "testdata")

// photoCase is a photograph and the options to remove its background
// with.
type photoCase struct {
	name string
	img  *image.NRGBA
	o    matting.Options
}

// loadPhoto decodes a JPEG of photoDir into an NRGBA image, enlarged
// bilinearly to w×h when w is not 0, and returns it with the face boxes
// the detector finds in it.
func loadPhoto(t *testing.T, name string, w, h int) (*image.NRGBA, []image.Rectangle) {
	t.Helper()
	f, err := os.Open(filepath.Join(photoDir, name))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	src, err := jpeg.Decode(f)
	require.NoError(t, err)
	b := src.Bounds()
	if w == 0 {
		w, h = b.Dx(), b.Dy()
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(img, img.Rect, src, b, draw.Src, nil)
	det, err := faces.NewDetector()
	require.NoError(t, err)
	var boxes []image.Rectangle
	for _, fc := range det.Detect(img) {
		boxes = append(boxes, fc.Box)
	}
	return img, boxes
}

// photoCases are the faces test data's photographs at their size (big
// false) or enlarged to 4000×3000 (big), each in general mode (plain,
// and with preprocessing and spill reduction) and in portrait mode with
// the faces found in it.
func photoCases(t *testing.T, big bool) []photoCase {
	w, h, size := 0, 0, "512x512"
	if big {
		w, h, size = 4000, 3000, "4000x3000"
	}
	img, boxes := loadPhoto(t, "astronaut.jpg", w, h)
	require.NotEmpty(t, boxes, "the detector finds the astronaut's face")
	cases := []photoCase{
		{"astronaut " + size + " general", img, matting.Options{}},
		{"astronaut " + size + " portrait", img, matting.Options{Mode: matting.ModePortrait, Faces: boxes, SpillReduction: true}},
	}
	if !big {
		cases = append(cases, photoCase{"astronaut " + size + " general preprocess spill", img,
			matting.Options{Preprocess: true, SpillReduction: true}})
	}
	return cases
}

// checkPhotoParity removes the backgrounds of photoCases with e and with
// the CPU engine: alpha and foreground within the parity bars (max |Δ|
// ≤ 2/255, mean ≤ 0.5/255) and the mattes' IoU at least photoMinIoU.
func checkPhotoParity(t *testing.T, e matting.Remover, big bool) {
	cpu := matting.NewCPU()
	ctx := context.Background()
	for _, c := range photoCases(t, big) {
		want, err := cpu.RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err, c.name)
		got, err := e.RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err, c.name)
		require.Equal(t, want.Alpha.Rect, got.Alpha.Rect, c.name)
		maxD, mean := alphaDiff(want.Alpha.Pix, got.Alpha.Pix)
		iou := synth.IoU(got.Alpha, want.Alpha, 128)
		t.Logf("%s: alpha vs CPU max |Δ| %d/255, mean %.4f/255, IoU %.5f", c.name, maxD, mean, iou)
		assert.LessOrEqual(t, maxD, parityMaxDiff, c.name)
		assert.LessOrEqual(t, mean, parityMeanDiff, c.name)
		assert.GreaterOrEqual(t, iou, photoMinIoU, c.name)
		require.Equal(t, want.Foreground != nil, got.Foreground != nil, c.name)
		if want.Foreground != nil {
			fMax, fMean := alphaDiff(want.Foreground.Pix, got.Foreground.Pix)
			t.Logf("%s: foreground vs CPU max |Δ| %d/255, mean %.4f/255", c.name, fMax, fMean)
			assert.LessOrEqual(t, fMax, parityMaxDiff, c.name)
			assert.LessOrEqual(t, fMean, parityMeanDiff, c.name)
		}
	}
}

func TestEmulatedPhotoParity(t *testing.T) {
	t.Parallel()
	checkPhotoParity(t, emuEngine(t), false)
}

// TestEmulatedPhotoParity12MP is TestEmulatedPhotoParity on the
// photographs enlarged to 4000×3000 (about a minute on two cores: not
// with -short).
func TestEmulatedPhotoParity12MP(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping 12 MP removals with -short")
	}
	t.Parallel()
	checkPhotoParity(t, emuEngine(t), true)
}

func TestGPUPhotoParity(t *testing.T) {
	e := openGPU(t)
	checkPhotoParity(t, e, false)
	checkPhotoParity(t, e, true)
}
