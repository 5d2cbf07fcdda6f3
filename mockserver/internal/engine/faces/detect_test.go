package faces

import (
	"image"
	"image/color"
	"runtime"
	"testing"

	pigo "github.com/esimov/pigo/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newDetector(t testing.TB) *Detector {
	t.Helper()
	d, err := NewDetector()
	require.NoError(t, err)
	return d
}

func assertEyesInBox(t *testing.T, f Face) {
	t.Helper()
	for _, e := range []PointF{f.LeftEye, f.RightEye} {
		assert.True(t, e.X >= float64(f.Box.Min.X) && e.X <= float64(f.Box.Max.X) &&
			e.Y >= float64(f.Box.Min.Y) && e.Y <= float64(f.Box.Max.Y),
			"eye %+v outside box %v", e, f.Box)
	}
}

func TestDetectAstronautFindsOneFace(t *testing.T) {
	t.Parallel()
	faces := detectAstronaut(t)
	require.Len(t, faces, 1)
	f := faces[0]
	assertEyesInBox(t, f)
	assert.Less(t, f.LeftEye.X, f.RightEye.X)
	// Pupils located by eye on the 512 px photo: about (204,102) and (247,104).
	assert.InDelta(t, 204, f.LeftEye.X, 5)
	assert.InDelta(t, 102, f.LeftEye.Y, 5)
	assert.InDelta(t, 247, f.RightEye.X, 5)
	assert.InDelta(t, 104, f.RightEye.Y, 5)
	// Face box between the hair line and the chin.
	assert.InDelta(t, 114, f.Box.Dx(), 20)
	assert.InDelta(t, 225, (f.Box.Min.X+f.Box.Max.X)/2, 10)
	assert.GreaterOrEqual(t, f.Confidence, 50)
	assert.LessOrEqual(t, f.Confidence, 100)
	assert.InDelta(t, 0, f.Angle, 10)
	assert.InDelta(t, 0, f.YawAngle, 15)
	assert.Zero(t, f.Blink)
	assert.Zero(t, f.Smile)
}

func TestDetectIsDeterministic(t *testing.T) {
	d := newDetector(t)
	img := loadAstronaut(t)
	// want is another Detector's first detection; d's runs, first and
	// repeated, and d2's must all give it.
	want := detectAstronaut(t)
	require.Len(t, want, 1)
	require.Equal(t, want, d.Detect(img), "first run")
	repeats := 3
	if raceEnabled {
		repeats = 1 // a repeated run on the same Detector's goroutines; the rest without the race detector
	}
	for i := 0; i < repeats; i++ {
		assert.Equal(t, want, d.Detect(img), "run %d", i)
	}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		got := d.Detect(img)
		runtime.GOMAXPROCS(old)
		assert.Equal(t, want, got, "GOMAXPROCS=%d", procs)
	}
	d2 := newDetector(t)
	assert.Equal(t, want, d2.Detect(img), "second Detector")
}

func TestDetectConcurrentUse(t *testing.T) {
	t.Parallel()
	d := newDetector(t)
	img := loadAstronaut(t)
	want := detectAstronaut(t)
	results := make(chan []Face, 4)
	for range 4 {
		go func() { results <- d.Detect(img) }()
	}
	for range 4 {
		assert.Equal(t, want, <-results)
	}
}

func TestDetectLargeImageMapsBack(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("scaling back a 1536 px image, not goroutines (the detector's run in TestDetectConcurrentUse and TestDetectIsDeterministic): checked without the race detector (go test)")
	}
	d := newDetector(t)
	small := detectAstronaut(t)
	require.Len(t, small, 1)
	// 1536 px: detection runs on a 1024 px copy; results come back ×3.
	big := d.Detect(scaleNearest(loadAstronaut(t), 1536, 1536))
	require.Len(t, big, 1)
	f := big[0]
	assertEyesInBox(t, f)
	assert.InDelta(t, 3*small[0].Box.Dx(), f.Box.Dx(), 0.1*float64(3*small[0].Box.Dx()))
	assert.InDelta(t, 3*small[0].LeftEye.X, f.LeftEye.X, 9)
	assert.InDelta(t, 3*small[0].LeftEye.Y, f.LeftEye.Y, 9)
	assert.InDelta(t, 3*small[0].RightEye.X, f.RightEye.X, 9)
	assert.InDelta(t, 3*small[0].RightEye.Y, f.RightEye.Y, 9)
}

func TestDetectHonoursImageOrigin(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("coordinates of a shifted image, not goroutines (the detector's run in TestDetectConcurrentUse and TestDetectIsDeterministic): checked without the race detector (go test)")
	}
	d := newDetector(t)
	img := loadAstronaut(t)
	want := detectAstronaut(t)
	require.Len(t, want, 1)
	shifted := cloneNRGBA(img)
	shifted.Rect = img.Rect.Add(image.Pt(100, 50))
	got := d.Detect(shifted)
	require.Len(t, got, 1)
	assert.Equal(t, want[0].Box.Add(image.Pt(100, 50)), got[0].Box)
	assert.InDelta(t, want[0].LeftEye.X+100, got[0].LeftEye.X, 1e-9)
	assert.InDelta(t, want[0].RightEye.Y+50, got[0].RightEye.Y, 1e-9)
}

func TestDetectNoFace(t *testing.T) {
	t.Parallel()
	d := newDetector(t)
	assert.Nil(t, d.Detect(nil))
	assert.Nil(t, d.Detect(image.NewNRGBA(image.Rect(0, 0, 0, 0))))
	assert.Nil(t, d.Detect(image.NewNRGBA(image.Rect(0, 0, 10, 2000))))
	flat := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	fill(flat, flat.Bounds(), color.NRGBA{120, 130, 140, 255})
	assert.Empty(t, d.Detect(flat))
	synth, _ := syntheticFace()
	assert.Empty(t, d.Detect(synth), "a cartoon oval is not a face")
}

// The per-scale split must reproduce one RunCascade over the whole range.
func TestPerScaleCascadeMatchesSingleRun(t *testing.T) {
	t.Parallel()
	d := newDetector(t)
	img := loadAstronaut(t)
	g := grayDownscale(img, 256, 256)
	whole := d.face.RunCascade(pigo.CascadeParams{
		MinSize: minFaceSize, MaxSize: 256, ShiftFactor: shiftFactor, ScaleFactor: scaleFactor,
		ImageParams: pigo.ImageParams{Pixels: g.pix, Rows: g.rows, Cols: g.cols, Dim: g.cols},
	}, 0)
	require.NotEmpty(t, whole)
	assert.Equal(t, whole, d.runCascade(g))
}

func TestGrayDownscale(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	fill(img, image.Rect(0, 0, 2, 2), color.NRGBA{255, 255, 255, 255})
	fill(img, image.Rect(2, 0, 4, 2), color.NRGBA{0, 0, 0, 255})
	g := grayDownscale(img, 2, 1)
	assert.Equal(t, []uint8{255, 0}, g.pix)
	g = grayDownscale(img, 1, 1)
	assert.Equal(t, []uint8{128}, g.pix)
	g = grayDownscale(img, 4, 2)
	assert.Equal(t, []uint8{255, 255, 0, 0, 255, 255, 0, 0}, g.pix)
}

func TestParsePuplocRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{nil, make([]byte, 15), puplocCascadeData[:1000], make([]byte, 64)} {
		_, err := parsePuploc(b)
		assert.ErrorIs(t, err, errPuplocFormat)
	}
	pc, err := parsePuploc(puplocCascadeData)
	require.NoError(t, err)
	assert.Equal(t, pc.stages*pc.trees*(4*pc.leaves-4), len(pc.codes))
}

func TestConfidenceMapping(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, confidence(0))
	assert.Equal(t, 0, confidence(-3))
	assert.Equal(t, 20, confidence(minQuality))
	assert.Equal(t, 50, confidence(confidenceHalfQ))
	assert.Equal(t, 100, confidence(1e9))
}

func TestRollAndYaw(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, rollAngle(PointF{10, 10}, PointF{20, 10}))
	assert.Equal(t, 45, rollAngle(PointF{10, 10}, PointF{20, 20}))
	assert.Equal(t, -45, rollAngle(PointF{10, 20}, PointF{20, 10}))
	box := image.Rect(0, 0, 100, 100)
	assert.Equal(t, 0, yawAngle(box, PointF{30, 40}, PointF{70, 40}))
	assert.Equal(t, 30, yawAngle(box, PointF{55, 40}, PointF{95, 40}))
	assert.Equal(t, -30, yawAngle(box, PointF{5, 40}, PointF{45, 40}))
	assert.Equal(t, 0, yawAngle(image.Rectangle{}, PointF{}, PointF{}))
}

func TestDetectSubImage(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("coordinates of a sub-image, not goroutines (the detector's run in TestDetectConcurrentUse and TestDetectIsDeterministic): checked without the race detector (go test)")
	}
	d := newDetector(t)
	img := loadAstronaut(t)
	want := detectAstronaut(t)
	require.Len(t, want, 1)
	canvas := image.NewNRGBA(image.Rect(0, 0, 700, 600))
	fill(canvas, canvas.Bounds(), color.NRGBA{128, 128, 128, 255})
	at := image.Rect(150, 60, 662, 572)
	copyInto(canvas, at, img)
	sub := canvas.SubImage(at).(*image.NRGBA)
	got := d.Detect(sub)
	require.Len(t, got, 1)
	assert.Equal(t, want[0].Box.Add(at.Min), got[0].Box)
	assert.Equal(t, want[0].Confidence, got[0].Confidence)
	assert.InDelta(t, want[0].LeftEye.X+150, got[0].LeftEye.X, 1e-9)
	assert.InDelta(t, want[0].LeftEye.Y+60, got[0].LeftEye.Y, 1e-9)
}
