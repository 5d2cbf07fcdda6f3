package matting

import (
	"context"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
)

var (
	astronautOnce  sync.Once
	astronautImg   *image.NRGBA
	astronautFaces []image.Rectangle
	astronautErr   error
)

// astronaut returns the real head-and-shoulders photo of package faces'
// test data (NASA portrait, 512×512) and the face boxes its detector finds.
func astronaut(t *testing.T) (*image.NRGBA, []image.Rectangle) {
	t.Helper()
	astronautOnce.Do(func() {
		f, err := os.Open(filepath.Join("..", "faces", "testdata", "astronaut.jpg"))
		if err != nil {
			astronautErr = err
			return
		}
		defer f.Close()
		src, err := jpeg.Decode(f)
		if err != nil {
			astronautErr = err
			return
		}
		img := image.NewNRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
		draw.Draw(img, img.Rect, src, src.Bounds().Min, draw.Src)
		det, err := faces.NewDetector()
		if err != nil {
			astronautErr = err
			return
		}
		for _, fc := range det.Detect(img) {
			astronautFaces = append(astronautFaces, fc.Box)
		}
		astronautImg = img
	})
	require.NoError(t, astronautErr)
	return astronautImg, astronautFaces
}

// realPortraitFigures are the properties asserted on a real portrait, where
// no ground truth exists.
type realPortraitFigures struct {
	column     float64 // fraction of the face-bottom-to-frame-bottom column that is foreground
	neck       float64 // fraction of the band under the chin (±0.3 face widths, one face height) that is foreground
	centre     float64 // fraction of the face box's central half that is foreground
	corners    [4]int  // largest alpha in each 16×16 corner patch
	components int     // 4-connected foreground components
	largest    float64 // share of the foreground in the largest component
}

func measureRealPortrait(alpha *image.Alpha, face image.Rectangle) realPortraitFigures {
	var f realPortraitFigures
	w, h := alpha.Rect.Dx(), alpha.Rect.Dy()
	at := func(x, y int) uint8 { return alpha.Pix[y*alpha.Stride+x] }
	cx := (face.Min.X + face.Max.X) / 2
	n, fg := 0, 0
	for y := face.Max.Y; y < h; y++ {
		n++
		if at(cx, y) >= 128 {
			fg++
		}
	}
	f.column = float64(fg) / float64(max(n, 1))
	n, fg = 0, 0
	for y := face.Max.Y; y < min(face.Max.Y+face.Dy(), h); y++ {
		for x := max(cx-3*face.Dx()/10, 0); x <= min(cx+3*face.Dx()/10, w-1); x++ {
			n++
			if at(x, y) >= 128 {
				fg++
			}
		}
	}
	f.neck = float64(fg) / float64(max(n, 1))
	inner := image.Rect(face.Min.X+face.Dx()/4, face.Min.Y+face.Dy()/4, face.Max.X-face.Dx()/4, face.Max.Y-face.Dy()/4)
	n, fg = 0, 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			n++
			if at(x, y) >= 128 {
				fg++
			}
		}
	}
	f.centre = float64(fg) / float64(max(n, 1))
	const patch = 16
	for i, c := range []image.Point{{0, 0}, {w - patch, 0}, {0, h - patch}, {w - patch, h - patch}} {
		for y := c.Y; y < c.Y+patch; y++ {
			for x := c.X; x < c.X+patch; x++ {
				f.corners[i] = max(f.corners[i], int(at(x, y)))
			}
		}
	}
	mask := make([]bool, w*h)
	total := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			mask[y*w+x] = at(x, y) >= 128
			if mask[y*w+x] {
				total++
			}
		}
	}
	_, comps := components(mask, w, h, true, false, nil)
	f.components = len(comps)
	biggest := 0
	for _, c := range comps {
		biggest = max(biggest, c.area)
	}
	f.largest = float64(biggest) / float64(max(total, 1))
	return f
}

// TestRealPortrait checks portrait mode on a real photo: the subject is one
// region from the head to the bottom edge (including the dark collar under
// the chin), the frame's corners are background, and the result is
// deterministic.
func TestRealPortrait(t *testing.T) {
	if raceEnabled {
		t.Skip("quality bars on a photo, not goroutines (portrait mode's run in TestAcceleratedMatchesCPU): checked without the race detector")
	}
	img, boxes := astronaut(t)
	require.Len(t, boxes, 1)
	face := boxes[0]
	m, err := NewCPU().RemoveBackground(context.Background(), img, Options{Mode: ModePortrait, Faces: boxes})
	require.NoError(t, err)
	f := measureRealPortrait(m.Alpha, face)
	t.Logf("face %v: neck column %.3f, neck band %.3f, face centre %.3f, corner max alpha %v, %d components, largest %.4f",
		face, f.column, f.neck, f.centre, f.corners, f.components, f.largest)
	assert.GreaterOrEqual(t, f.column, 0.95, "the column below the face must be the subject")
	assert.GreaterOrEqual(t, f.neck, 0.95, "dark clothing under the chin must be the subject")
	assert.GreaterOrEqual(t, f.centre, 0.99, "the face must be the subject")
	for i, c := range f.corners {
		assert.Less(t, c, 32, "corner %d must be background", i)
	}
	assert.GreaterOrEqual(t, f.largest, 0.99, "the subject must be one region")

	again, err := NewCPU().RemoveBackground(context.Background(), img, Options{Mode: ModePortrait, Faces: boxes})
	require.NoError(t, err)
	assert.Equal(t, m.Alpha.Pix, again.Alpha.Pix, "not deterministic")
}
