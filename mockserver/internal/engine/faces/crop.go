package faces

import (
	"errors"
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
)

// Wire names of the autocrop parameters (hosted API, GET /pfc).
const (
	ParamSize       = "autocropSize"
	ParamX          = "autocropX"
	ParamY          = "autocropY"
	ParamARW        = "cropARW"
	ParamARH        = "cropARH"
	ParamTopHeadGap = "autocropTopHeadGap"
)

// Defaults used for parameters that are not given.
const (
	DefaultCropSize = 0.5
	DefaultCropX    = 0.5
	DefaultCropY    = 0.4
	DefaultCropARW  = 3
	DefaultCropARH  = 4
)

// Head model relative to the (square) face box: the head, crown to chin, is
// headHeightFactor box sizes tall and its top lies headTopFactor box sizes
// above the box. On the astronaut test photo (box 101 px) the top of her
// rather high hair is 0.47 box sizes above the box and the chin 0.12 below
// it; the factors are rounded towards an average head.
const (
	headHeightFactor = 1.5
	headTopFactor    = 0.4
	// dominantFaceRatio: with several faces, the largest is used when its box
	// area is at least this multiple of the runner-up's.
	dominantFaceRatio = 2.0
)

var (
	// ErrNoFace means auto-crop found no face to crop around.
	ErrNoFace = errors.New("faces: autocrop: no face found")
	// ErrMultipleFaces means auto-crop found several faces and none clearly
	// dominates (see doc.go), so there is no single portrait subject.
	ErrMultipleFaces = errors.New("faces: autocrop: several faces of similar size")
	// ErrInvalidCropParam is wrapped by every *CropParamError.
	ErrInvalidCropParam = errors.New("faces: invalid autocrop parameter")
	// ErrInvalidImageSize means AutoCrop was given a non-positive image size.
	ErrInvalidImageSize = errors.New("faces: autocrop: invalid image size")
)

// CropParamError names the autocrop parameter (by its wire name) that could
// not be parsed or is out of range. It unwraps to ErrInvalidCropParam.
type CropParamError struct {
	Param  string // wire name, e.g. "autocropSize"
	Value  string // the value as given
	Reason string
}

// Error implements error.
func (e *CropParamError) Error() string {
	return fmt.Sprintf("faces: invalid autocrop parameter %s=%q: %s", e.Param, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidCropParam.
func (e *CropParamError) Unwrap() error { return ErrInvalidCropParam }

// CropParams are the numeric auto-crop parameters; doc.go defines each one.
// Build them with ParseCropParams or DefaultCropParams: AutoCrop rejects a
// zero Size, ARW or ARH rather than guessing.
type CropParams struct {
	// Size is head height (crown to chin) / crop height, > 0 (above 1 the
	// crop is tighter than the head).
	Size float64
	// X is the head centre's horizontal position / crop width, in [0, 1].
	X float64
	// Y is the eye line's vertical position / crop height, in [0, 1].
	Y float64
	// ARW:ARH is the crop aspect ratio (width:height), both > 0.
	ARW, ARH float64
	// TopHeadGap > 0 places the top of the head this fraction of the crop
	// height below the crop's top edge and overrides Y; ≤ 0 disables it.
	TopHeadGap float64
}

// DefaultCropParams returns the parameters used when none is given:
// head half the crop height, centred, eyes at 40 % from the top, 3:4.
func DefaultCropParams() CropParams {
	return CropParams{Size: DefaultCropSize, X: DefaultCropX, Y: DefaultCropY, ARW: DefaultCropARW, ARH: DefaultCropARH}
}

// ParseCropParams parses the documented string parameters. An empty (or
// all-space) string selects the default. Accepted: a plain decimal number
// ("0.45", "-1", "2e-1"), a decimal comma when there is no point ("0,45"),
// and for Size, X, Y and TopHeadGap a trailing percent sign ("45%" = 0.45).
// The first bad parameter is reported as a *CropParamError.
func ParseCropParams(size, x, y, arw, arh, topHeadGap string) (CropParams, error) {
	p := DefaultCropParams()
	fields := []struct {
		name    string
		raw     string
		dst     *float64
		percent bool
	}{
		{ParamSize, size, &p.Size, true},
		{ParamX, x, &p.X, true},
		{ParamY, y, &p.Y, true},
		{ParamARW, arw, &p.ARW, false},
		{ParamARH, arh, &p.ARH, false},
		{ParamTopHeadGap, topHeadGap, &p.TopHeadGap, true},
	}
	for _, f := range fields {
		if strings.TrimSpace(f.raw) == "" {
			continue
		}
		v, err := parseNumber(f.raw, f.percent)
		if err != nil {
			return CropParams{}, &CropParamError{Param: f.name, Value: f.raw, Reason: err.Error()}
		}
		*f.dst = v
	}
	if err := p.Validate(); err != nil {
		return CropParams{}, err
	}
	return p, nil
}

func parseNumber(raw string, percent bool) (float64, error) {
	s := strings.TrimSpace(raw)
	scale := 1.0
	if strings.HasSuffix(s, "%") {
		if !percent {
			return 0, errors.New("percent not allowed here")
		}
		s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
		scale = 0.01
	}
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	// strconv also takes hex floats, "inf", "nan" and digit underscores;
	// none of those is a value an editor copies.
	if s == "" || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E')
	}) >= 0 {
		return 0, errors.New("not a decimal number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("not a decimal number")
	}
	return v * scale, nil
}

// Validate reports the first out-of-range field as a *CropParamError.
func (p CropParams) Validate() error {
	bad := func(name string, v float64, reason string) error {
		return &CropParamError{Param: name, Value: strconv.FormatFloat(v, 'g', -1, 64), Reason: reason}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(p.Size) || p.Size <= 0:
		return bad(ParamSize, p.Size, "must be > 0")
	case !finite(p.X) || p.X < 0 || p.X > 1:
		return bad(ParamX, p.X, "must be in [0, 1]")
	case !finite(p.Y) || p.Y < 0 || p.Y > 1:
		return bad(ParamY, p.Y, "must be in [0, 1]")
	case !finite(p.ARW) || p.ARW <= 0:
		return bad(ParamARW, p.ARW, "must be > 0")
	case !finite(p.ARH) || p.ARH <= 0:
		return bad(ParamARH, p.ARH, "must be > 0")
	case !finite(p.TopHeadGap):
		return bad(ParamTopHeadGap, p.TopHeadGap, "must be a finite number (≤ 0 disables)")
	}
	return nil
}

// cropSubject picks the face to crop around (see ErrMultipleFaces).
func cropSubject(faces []Face) (Face, error) {
	if len(faces) == 0 {
		return Face{}, ErrNoFace
	}
	best, second := -1, -1
	area := func(i int) int { return faces[i].Box.Dx() * faces[i].Box.Dy() }
	for i := range faces {
		switch {
		case best < 0 || area(i) > area(best):
			best, second = i, best
		case second < 0 || area(i) > area(second):
			second = i
		}
	}
	if area(best) <= 0 {
		return Face{}, ErrNoFace
	}
	if second >= 0 && float64(area(best)) < dominantFaceRatio*float64(area(second)) {
		return Face{}, fmt.Errorf("%w (%d faces)", ErrMultipleFaces, len(faces))
	}
	return faces[best], nil
}

// AutoCrop returns the crop rectangle, inside (0,0)-(imgW,imgH), that frames
// the portrait's head as p describes (doc.go gives the geometry). When the
// requested crop is larger than the image it is shrunk, keeping its aspect,
// to the largest size that fits; when it would extend past an edge it is
// shifted inside, so the head then sits off its requested X/Y. Coordinates
// are those of an image whose bounds start at (0,0), the engine's convention;
// faces must be in the same coordinates.
func AutoCrop(imgW, imgH int, faces []Face, p CropParams) (image.Rectangle, error) {
	if imgW <= 0 || imgH <= 0 {
		return image.Rectangle{}, fmt.Errorf("%w: %dx%d", ErrInvalidImageSize, imgW, imgH)
	}
	if err := p.Validate(); err != nil {
		return image.Rectangle{}, err
	}
	f, err := cropSubject(faces)
	if err != nil {
		return image.Rectangle{}, err
	}
	hm := headModel(f)

	ch := hm.height / p.Size
	cw := ch * p.ARW / p.ARH
	if fit := math.Min(float64(imgW)/cw, float64(imgH)/ch); fit < 1 {
		cw, ch = cw*fit, ch*fit
	}
	w, h := cropDims(cw, ch, p.ARW, p.ARH, imgW, imgH)

	left := hm.centreX - p.X*float64(w)
	top := hm.eyeY - p.Y*float64(h)
	if p.TopHeadGap > 0 {
		top = hm.top - p.TopHeadGap*float64(h)
	}
	x0 := clampInt(int(math.Round(left)), 0, imgW-w)
	y0 := clampInt(int(math.Round(top)), 0, imgH-h)
	return image.Rect(x0, y0, x0+w, y0+h), nil
}

// head is the head geometry auto-crop derives from a face.
type head struct {
	centreX, eyeY, top, height float64
}

func headModel(f Face) head {
	size := float64(max(f.Box.Dx(), f.Box.Dy()))
	le, re := faceEyes(f)
	return head{
		centreX: (le.X + re.X) / 2,
		eyeY:    (le.Y + re.Y) / 2,
		top:     float64(f.Box.Min.Y) - headTopFactor*size,
		height:  headHeightFactor * size,
	}
}

// faceEyes returns the face's eyes, or the detector's eye priors inside Box
// when the eyes are unset or lie outside it (hand-made Face values).
func faceEyes(f Face) (PointF, PointF) {
	in := func(p PointF) bool {
		return p.X >= float64(f.Box.Min.X) && p.X <= float64(f.Box.Max.X) &&
			p.Y >= float64(f.Box.Min.Y) && p.Y <= float64(f.Box.Max.Y)
	}
	if (f.LeftEye != PointF{} || f.RightEye != PointF{}) && in(f.LeftEye) && in(f.RightEye) && f.LeftEye != f.RightEye {
		return f.LeftEye, f.RightEye
	}
	w, h := float64(f.Box.Dx()), float64(f.Box.Dy())
	x0, y0 := float64(f.Box.Min.X), float64(f.Box.Min.Y)
	y := y0 + (0.5-eyeRowOffset)*h
	return PointF{X: x0 + (0.5-leftEyeColOff)*w, Y: y}, PointF{X: x0 + (0.5+rightEyeColOff)*w, Y: y}
}

// cropDims turns the ideal crop size into whole pixels within the image.
// ARW:ARH is reduced to integers p:q (after rounding both to 1/1000). When
// the step q is small against the crop (q ≤ max(10, height/20), so snapping
// moves the height by at most 5 px or 2.5 %) and p×q fits the image, the crop
// is exactly p·k × q·k with k nearest the ideal; otherwise both sides are
// rounded separately (aspect within one pixel).
func cropDims(cw, ch, arw, arh float64, imgW, imgH int) (int, int) {
	p, q := int64(math.Round(arw*1000)), int64(math.Round(arh*1000))
	if p > 0 && q > 0 {
		g := gcd(p, q)
		p, q = p/g, q/g
		if p <= int64(imgW) && q <= int64(imgH) && float64(q) <= math.Max(10, ch/20) {
			k := int64(math.Round(ch / float64(q)))
			k = min(k, int64(imgW)/p, int64(imgH)/q)
			k = max(k, 1)
			return int(p * k), int(q * k)
		}
	}
	w := clampInt(int(math.Round(cw)), 1, imgW)
	h := clampInt(int(math.Round(ch)), 1, imgH)
	return w, h
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
