package faces

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// meanAbsDiff is the mean absolute RGB difference between a and b over pts.
func meanAbsDiff(a, b *image.NRGBA, pts []image.Point) float64 {
	var s float64
	for _, p := range pts {
		pa, pb := a.Pix[a.PixOffset(p.X, p.Y):], b.Pix[b.PixOffset(p.X, p.Y):]
		for c := 0; c < 3; c++ {
			s += math.Abs(float64(pa[c]) - float64(pb[c]))
		}
	}
	return s / float64(3*len(pts))
}

// diskPoints lists the pixels whose centres lie within r of (cx, cy).
func diskPoints(cx, cy, r float64) []image.Point {
	var pts []image.Point
	for y := int(cy - r - 1); y <= int(cy+r+1); y++ {
		for x := int(cx - r - 1); x <= int(cx+r+1); x++ {
			if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) <= r {
				pts = append(pts, image.Pt(x, y))
			}
		}
	}
	return pts
}

// ringPoints lists the pixels whose centres lie between r0 and r1 of (cx, cy).
func ringPoints(cx, cy, r0, r1 float64) []image.Point {
	var pts []image.Point
	for _, p := range diskPoints(cx, cy, r1) {
		if math.Hypot(float64(p.X)+0.5-cx, float64(p.Y)+0.5-cy) > r0 {
			pts = append(pts, p)
		}
	}
	return pts
}

func meanColour(img *image.NRGBA, pts []image.Point) [3]float64 {
	var m [3]float64
	for _, p := range pts {
		px := img.Pix[img.PixOffset(p.X, p.Y):]
		for c := range m {
			m[c] += float64(px[c]) / float64(len(pts))
		}
	}
	return m
}

func colourDistance(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// glareSpots returns blob centres and radius for glare painted on lenses:
// up and outwards of each pupil, as a window reflection would sit.
func glareSpots(f Face) ([]PointF, float64) {
	le, re := f.LeftEye, f.RightEye
	d := math.Hypot(re.X-le.X, re.Y-le.Y)
	r := 0.11 * d
	return []PointF{{le.X - 0.12*d, le.Y - 0.1*d}, {re.X + 0.1*d, re.Y - 0.12*d}}, r
}

func testGlareRemoved(t *testing.T, orig *image.NRGBA, f Face) {
	t.Helper()
	spots, r := glareSpots(f)
	painted := cloneNRGBA(orig)
	var pts []image.Point
	for _, s := range spots {
		paintDisk(painted, s.X, s.Y, r, color.NRGBA{252, 252, 250, 255})
		pts = append(pts, diskPoints(s.X, s.Y, r)...)
	}
	before := meanAbsDiff(painted, orig, pts)
	require.Greater(t, before, 40.0, "test blobs must differ from the picture")

	fixed := cloneNRGBA(painted)
	require.True(t, RemoveGlare(fixed, []Face{f}))
	after := meanAbsDiff(fixed, orig, pts)
	for _, s := range spots {
		blob, ring := diskPoints(s.X, s.Y, r), ringPoints(s.X, s.Y, r+1.5, r+3.5)
		gapBefore := colourDistance(meanColour(painted, blob), meanColour(painted, ring))
		gapAfter := colourDistance(meanColour(fixed, blob), meanColour(fixed, ring))
		t.Logf("blob at %.0f,%.0f: blob-vs-surroundings gap %.1f → %.1f", s.X, s.Y, gapBefore, gapAfter)
		assert.Less(t, gapAfter, 0.35*gapBefore, "inpainted blob must take the surroundings' colour")
	}
	t.Logf("mean |Δ| to the unpainted picture inside blobs: painted %.1f, inpainted %.1f", before, after)
	assert.Less(t, after, 0.6*before, "inpainted blobs must move towards the unpainted picture")
	// Far from the eyes nothing changes.
	assert.True(t, bytes.Equal(painted.Pix[:painted.PixOffset(0, f.Box.Min.Y)], fixed.Pix[:fixed.PixOffset(0, f.Box.Min.Y)]))
	// Alpha is kept.
	for i := 3; i < len(fixed.Pix); i += 4 {
		if painted.Pix[i] != fixed.Pix[i] {
			require.Equal(t, painted.Pix[i], fixed.Pix[i])
		}
	}

	again := cloneNRGBA(painted)
	RemoveGlare(again, []Face{f})
	assert.True(t, bytes.Equal(fixed.Pix, again.Pix), "deterministic")
}

func TestRemoveGlareOnPhoto(t *testing.T) {
	t.Parallel()
	img := loadAstronaut(t)
	faces := detectAstronaut(t)
	require.Len(t, faces, 1)

	clean := cloneNRGBA(img)
	assert.False(t, RemoveGlare(clean, faces), "no glasses, no glare")
	assert.True(t, bytes.Equal(img.Pix, clean.Pix), "image untouched without glare")

	testGlareRemoved(t, img, faces[0])
}

func TestRemoveGlareOnSynthetic(t *testing.T) {
	t.Parallel()
	img, f := syntheticFace()
	clean := cloneNRGBA(img)
	assert.False(t, RemoveGlare(clean, []Face{f}), "sclera and white backdrop are not glare")
	assert.True(t, bytes.Equal(img.Pix, clean.Pix))

	testGlareRemoved(t, img, f)
}

func TestRemoveGlareIgnoresSmallCatchLights(t *testing.T) {
	t.Parallel()
	img, f := syntheticFace()
	for _, e := range []PointF{f.LeftEye, f.RightEye} {
		paintDisk(img, e.X+2, e.Y-2, 1.2, color.NRGBA{255, 255, 255, 255})
	}
	clean := cloneNRGBA(img)
	assert.False(t, RemoveGlare(clean, []Face{f}))
	assert.True(t, bytes.Equal(img.Pix, clean.Pix))
}

func TestRemoveGlareIgnoresTintedHighlights(t *testing.T) {
	t.Parallel()
	img, f := syntheticFace()
	spots, r := glareSpots(f)
	for _, s := range spots {
		paintDisk(img, s.X, s.Y, r, color.NRGBA{255, 215, 150, 255}) // warm, saturated
	}
	clean := cloneNRGBA(img)
	assert.False(t, RemoveGlare(clean, []Face{f}))
	assert.True(t, bytes.Equal(img.Pix, clean.Pix))
}

func TestRemoveGlareUsesEyePriorsWithoutEyes(t *testing.T) {
	t.Parallel()
	img, f := syntheticFace()
	noEyes := Face{Box: f.Box}
	le, re := faceEyes(noEyes)
	assert.InDelta(t, f.LeftEye.X, le.X, 5)
	assert.InDelta(t, f.RightEye.X, re.X, 5)
	spots, r := glareSpots(f)
	for _, s := range spots {
		paintDisk(img, s.X, s.Y, r, color.NRGBA{255, 255, 255, 255})
	}
	assert.True(t, RemoveGlare(img, []Face{noEyes}))
}

func TestRemoveGlareDegenerateInput(t *testing.T) {
	t.Parallel()
	assert.False(t, RemoveGlare(nil, []Face{{Box: image.Rect(0, 0, 10, 10)}}))
	img, f := syntheticFace()
	assert.False(t, RemoveGlare(img, nil))
	f.Box = f.Box.Add(image.Pt(5000, 5000))
	f.LeftEye, f.RightEye = PointF{}, PointF{}
	assert.False(t, RemoveGlare(img, []Face{f}), "face outside the image")
	assert.False(t, RemoveGlare(img, []Face{{Box: image.Rect(10, 10, 12, 12)}}), "tiny face")
}
