package faces

import (
	"image"
	"math"
)

// Red-eye heuristic (documented in doc.go).
const (
	// redEyeRadiusFrac: the pupil disk tested is this fraction of the eye
	// distance (a flash-dilated pupil; the iris is about 0.095).
	redEyeRadiusFrac = 0.07
	// redEyeMinRed: a red pixel has R ≥ redEyeMinRed and R ≥ 2·G and R ≥ 2·B.
	redEyeMinRed = 100
	// redEyeMinShare: share of red pixels in the disk that flags the eye.
	redEyeMinShare = 0.3
)

// Values RedEye returns; they fill detectionData.redEye.
const (
	RedEyeNone     = "none"
	RedEyeDetected = "detected"
)

// RedEye reports RedEyeDetected when, for any face, at least 30 % of the
// pixels in a disk of 0.07 eye distances around either pupil are
// red-dominant (R ≥ 100, R ≥ 2G, R ≥ 2B), and RedEyeNone otherwise. It only
// detects; the image is not modified.
func RedEye(img *image.NRGBA, faces []Face) string {
	if img == nil {
		return RedEyeNone
	}
	for _, f := range faces {
		le, re := faceEyes(f)
		r := math.Max(1.5, redEyeRadiusFrac*eyeDistance(f, le, re))
		if redShare(img, le, r) >= redEyeMinShare || redShare(img, re, r) >= redEyeMinShare {
			return RedEyeDetected
		}
	}
	return RedEyeNone
}

// redShare is the share of red-dominant pixels whose centres lie within r of c.
func redShare(img *image.NRGBA, c PointF, r float64) float64 {
	b := img.Bounds()
	x0 := max(b.Min.X, int(math.Floor(c.X-r)))
	x1 := min(b.Max.X, int(math.Ceil(c.X+r)))
	y0 := max(b.Min.Y, int(math.Floor(c.Y-r)))
	y1 := min(b.Max.Y, int(math.Ceil(c.Y+r)))
	total, red := 0, 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if math.Hypot(float64(x)+0.5-c.X, float64(y)+0.5-c.Y) > r {
				continue
			}
			total++
			p := img.Pix[img.PixOffset(x, y):]
			if p[0] >= redEyeMinRed && int(p[0]) >= 2*int(p[1]) && int(p[0]) >= 2*int(p[2]) {
				red++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(red) / float64(total)
}
