package faces

import (
	_ "embed"
	"fmt"
	"image"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	pigo "github.com/esimov/pigo/core"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

//go:embed cascade/facefinder
var facefinderCascade []byte

//go:embed cascade/puploc
var puplocCascadeData []byte

// Detection tuning. The values are documented in doc.go; change them together
// with the documentation and the tests' expectations.
const (
	// detectLongSide is the long side of the grayscale copy detection runs on.
	detectLongSide = 1024
	// minFaceSize is the smallest face window, in detection-image pixels.
	minFaceSize = 32
	// shiftFactor and scaleFactor are pigo's window step and scale growth.
	shiftFactor = 0.1
	scaleFactor = 1.1
	// clusterIoU merges raw windows overlapping more than this.
	clusterIoU = 0.2
	// minQuality is the smallest clustered pigo score kept as a face.
	minQuality = 10.0
	// confidenceHalfQ is the clustered score mapped to confidence 50.
	confidenceHalfQ = 40.0
	// Eye priors relative to the face window (pigo's CLI values): eyes sit
	// 0.075 window sizes above the centre, 0.175 left and 0.185 right of it;
	// the search window is a quarter of the face window.
	eyeRowOffset    = 0.075
	leftEyeColOff   = 0.175
	rightEyeColOff  = 0.185
	eyeWindowFactor = 0.25
	// maxEyeShift is how far (in face-window sizes) a localised pupil may move
	// from its prior before the prior is used instead.
	maxEyeShift = 0.15
)

// PointF is a position in source-image pixels. Coordinates are continuous:
// (0,0) is the top-left corner of the image and pixel (i,j) covers
// [i,i+1)×[j,j+1), so the centre of pixel (i,j) is (i+0.5, j+0.5).
type PointF struct {
	X, Y float64
}

// Face is one detected face in source-image coordinates. The documented face
// object (left/top/width/height) is Box.Min.X, Box.Min.Y, Box.Dx(), Box.Dy().
type Face struct {
	// Box is the square face window mapped back to the source image and
	// clipped to its bounds.
	Box image.Rectangle
	// Confidence is 0..100: round(100*Q/(Q+40)) for pigo's clustered score Q.
	Confidence int
	// Angle is the in-plane roll in degrees, from the eye line (see doc.go).
	Angle int
	// Blink and Smile are not estimated; always 0.
	Blink, Smile int
	// YawAngle is a coarse left/right head-turn estimate in degrees (doc.go).
	YawAngle int
	// LeftEye is the pupil on the image's left (smaller X), RightEye the one
	// on the image's right, both inside Box.
	LeftEye, RightEye PointF
}

// Detector finds faces and pupils with pigo's cascades. It holds only
// read-only parsed cascades, so one Detector is safe for concurrent use.
type Detector struct {
	face *pigo.Pigo
	pup  *puplocCascade
}

var (
	cascadeOnce sync.Once
	cascadeDet  *Detector
	cascadeErr  error
)

// NewDetector returns a Detector. The embedded cascades are parsed once per
// process and shared by every Detector.
func NewDetector() (*Detector, error) {
	cascadeOnce.Do(func() {
		cascadeDet, cascadeErr = parseCascades()
	})
	if cascadeErr != nil {
		return nil, cascadeErr
	}
	return cascadeDet, nil
}

func parseCascades() (d *Detector, err error) {
	// pigo's unpacker indexes the input without bounds checks; the data is
	// embedded, but a corrupted build must still fail with an error.
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("faces: parsing facefinder cascade: %v", r)
		}
	}()
	face, err := pigo.NewPigo().Unpack(facefinderCascade)
	if err != nil {
		return nil, fmt.Errorf("faces: parsing facefinder cascade: %w", err)
	}
	pup, err := parsePuploc(puplocCascadeData)
	if err != nil {
		return nil, err
	}
	return &Detector{face: face, pup: pup}, nil
}

// Detect returns the faces in img, largest first (then top-to-bottom,
// left-to-right). It returns nil when img is too small to hold a face.
// The result depends only on the pixels, not on GOMAXPROCS or timing.
func (d *Detector) Detect(img *image.NRGBA) []Face {
	if img == nil {
		return nil
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < minFaceSize+2 || h < minFaceSize+2 {
		return nil
	}
	dw, dh := w, h
	if long := max(w, h); long > detectLongSide {
		dw = max(1, int(math.Round(float64(w)*detectLongSide/float64(long))))
		dh = max(1, int(math.Round(float64(h)*detectLongSide/float64(long))))
	}
	g := grayDownscale(img, dw, dh)
	if g.rows < minFaceSize+2 || g.cols < minFaceSize+2 {
		return nil
	}
	dets := d.runCascade(g)
	dets = d.face.ClusterDetections(dets, clusterIoU)

	fx := float64(w) / float64(dw)
	fy := float64(h) / float64(dh)
	var faces []Face
	for _, det := range dets {
		if det.Q < minQuality {
			continue
		}
		faces = append(faces, d.buildFace(det, g, fx, fy, b))
	}
	sort.SliceStable(faces, func(i, j int) bool {
		ai, aj := faces[i].Box.Dx()*faces[i].Box.Dy(), faces[j].Box.Dx()*faces[j].Box.Dy()
		if ai != aj {
			return ai > aj
		}
		if faces[i].Box.Min.Y != faces[j].Box.Min.Y {
			return faces[i].Box.Min.Y < faces[j].Box.Min.Y
		}
		return faces[i].Box.Min.X < faces[j].Box.Min.X
	})
	return faces
}

// windowScales lists the window sizes pigo's RunCascade would visit for
// [minSize, maxSize], so each can be run separately.
func windowScales(minSize, maxSize int) []int {
	var s []int
	for scale := minSize; scale <= maxSize; {
		s = append(s, scale)
		scale = int(float64(scale) + math.Max(2, float64(scale)*scaleFactor-float64(scale)))
	}
	return s
}

// runCascade runs pigo's scanning window over every scale, spreading scales
// across GOMAXPROCS workers. Each scale's detections land in its own slot and
// are concatenated in scale order, which is exactly the order a single
// RunCascade call over the whole range produces.
func (d *Detector) runCascade(g *grayImage) []pigo.Detection {
	scales := windowScales(minFaceSize, min(g.rows, g.cols))
	perScale := make([][]pigo.Detection, len(scales))
	params := pigo.ImageParams{Pixels: g.pix, Rows: g.rows, Cols: g.cols, Dim: g.cols}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(scales)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(scales) {
					return
				}
				perScale[i] = d.face.RunCascade(pigo.CascadeParams{
					MinSize: scales[i], MaxSize: scales[i],
					ShiftFactor: shiftFactor, ScaleFactor: scaleFactor,
					ImageParams: params,
				}, 0)
			}
		}()
	}
	wg.Wait()
	var all []pigo.Detection
	for _, p := range perScale {
		all = append(all, p...)
	}
	return all
}

// buildFace maps a clustered detection to source coordinates and locates the
// pupils.
func (d *Detector) buildFace(det pigo.Detection, g *grayImage, fx, fy float64, bounds image.Rectangle) Face {
	s := float64(det.Scale)
	cx, cy := float64(det.Col)+0.5, float64(det.Row)+0.5
	box := image.Rect(
		int(math.Round((cx-s/2)*fx)), int(math.Round((cy-s/2)*fy)),
		int(math.Round((cx+s/2)*fx)), int(math.Round((cy+s/2)*fy)),
	).Add(bounds.Min).Intersect(bounds)

	eyeRow := float64(det.Row) - eyeRowOffset*s
	left := d.eye(eyeRow, float64(det.Col)-leftEyeColOff*s, s, g)
	right := d.eye(eyeRow, float64(det.Col)+rightEyeColOff*s, s, g)
	toSrc := func(p PointF) PointF {
		pt := PointF{X: p.X * fx, Y: p.Y * fy}
		// Keep the documented promise that both eyes lie inside Box, also when
		// the window was clipped at the image border.
		pt.X = math.Min(math.Max(pt.X, float64(box.Min.X-bounds.Min.X)), float64(box.Max.X-bounds.Min.X)-0.5)
		pt.Y = math.Min(math.Max(pt.Y, float64(box.Min.Y-bounds.Min.Y)), float64(box.Max.Y-bounds.Min.Y)-0.5)
		return PointF{X: pt.X + float64(bounds.Min.X), Y: pt.Y + float64(bounds.Min.Y)}
	}
	le, re := toSrc(left), toSrc(right)
	if le.X > re.X {
		le, re = re, le
	}
	f := Face{
		Box:        box,
		Confidence: confidence(det.Q),
		LeftEye:    le,
		RightEye:   re,
	}
	f.Angle = rollAngle(le, re)
	f.YawAngle = yawAngle(box, le, re)
	return f
}

// eye localises one pupil from its prior position (detection-image pixel
// indices) and returns it as a continuous point in detection-image pixels.
// A result that wandered further than maxEyeShift face sizes from the prior
// is treated as a failure and the prior is used.
func (d *Detector) eye(row, col, faceSize float64, g *grayImage) PointF {
	r, c := d.pup.locate(float32(int(row)), float32(int(col)), float32(faceSize*eyeWindowFactor), g)
	pr, pc := float64(r), float64(c)
	if math.IsNaN(pr) || math.IsNaN(pc) || math.Hypot(pr-row, pc-col) > maxEyeShift*faceSize {
		pr, pc = row, col
	}
	return PointF{X: pc + 0.5, Y: pr + 0.5}
}

// confidence maps pigo's clustered score (sum of the member windows' scores,
// unbounded) onto 0..100 with a saturating curve.
func confidence(q float32) int {
	if q <= 0 {
		return 0
	}
	return int(math.Round(100 * float64(q) / (float64(q) + confidenceHalfQ)))
}

// rollAngle is the eye line's angle from horizontal in degrees; positive when
// the right-hand eye is lower (head tilted clockwise as seen in the image).
func rollAngle(l, r PointF) int {
	dx, dy := r.X-l.X, r.Y-l.Y
	if dx == 0 && dy == 0 {
		return 0
	}
	return int(math.Round(math.Atan2(dy, dx) * 180 / math.Pi))
}

// yawAngle estimates the head turn from how far the eye midpoint sits from
// the face window's centre, modelling the head as a cylinder whose radius is
// half the window: yaw = asin(offset / radius). Positive when the eyes are
// shifted towards the image's right.
func yawAngle(box image.Rectangle, l, r PointF) int {
	radius := float64(box.Dx()) / 2
	if radius <= 0 {
		return 0
	}
	centre := float64(box.Min.X) + radius
	off := ((l.X+r.X)/2 - centre) / radius
	off = math.Max(-1, math.Min(1, off))
	return int(math.Round(math.Asin(off) * 180 / math.Pi))
}

// grayDownscale converts img to luma (BT.601 weights, alpha ignored) and
// shrinks it to dw×dh by area averaging over integer source blocks. Rows are
// split across GOMAXPROCS goroutines; each output row depends only on its
// own source rows, so the result is identical for any worker count.
func grayDownscale(img *image.NRGBA, dw, dh int) *grayImage {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := &grayImage{pix: make([]uint8, dw*dh), rows: dh, cols: dw}
	x0s := make([]int, dw+1)
	for x := 0; x <= dw; x++ {
		x0s[x] = x * w / dw
	}
	parallel.Rows(dh, func(y0, y1 int) {
		sums := make([]uint32, dw)
		for y := y0; y < y1; y++ {
			sy0, sy1 := y*h/dh, (y+1)*h/dh
			if sy1 <= sy0 {
				sy1 = sy0 + 1
			}
			clear(sums)
			for sy := sy0; sy < sy1; sy++ {
				off := img.PixOffset(b.Min.X, b.Min.Y+sy)
				row := img.Pix[off : off+4*w]
				for x := 0; x < dw; x++ {
					var s uint32
					for sx := x0s[x]; sx < max(x0s[x+1], x0s[x]+1); sx++ {
						p := row[4*sx : 4*sx+3 : 4*sx+3]
						s += (19595*uint32(p[0]) + 38470*uint32(p[1]) + 7471*uint32(p[2]) + 1<<15) >> 16
					}
					sums[x] += s
				}
			}
			dst := out.pix[y*dw : (y+1)*dw]
			for x := range dst {
				n := uint32((sy1 - sy0) * max(x0s[x+1]-x0s[x], 1))
				dst[x] = uint8((sums[x] + n/2) / n)
			}
		}
	})
	return out
}
