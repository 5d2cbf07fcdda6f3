package colorspace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

var (
	// ErrNotICC is returned (wrapped) for data that is not an ICC profile:
	// too short, no "acsp" signature, or a tag table outside the data.
	ErrNotICC = errors.New("colorspace: not an ICC profile")
	// ErrNotMatrixTRC is returned (wrapped) for a valid profile the mock
	// cannot apply: not RGB with an XYZ connection space, or without the
	// six matrix/TRC tags (a LUT-based profile), or with a matrix that
	// cannot be inverted.
	ErrNotMatrixTRC = errors.New("colorspace: not an RGB matrix/TRC profile")
)

// Curve is a tone reproduction curve: the encoded value (0..1) to linear
// light (0..1).
type Curve struct {
	// kind is curveGamma, curveTable or curveParam.
	kind  int
	gamma float64
	table []float64
	ptype int
	p     [7]float64 // g, a, b, c, d, e, f
}

const (
	curveGamma = iota
	curveTable
	curveParam
)

// Gamma returns the curve y = x^g (g = 1 is the identity).
func Gamma(g float64) Curve { return Curve{kind: curveGamma, gamma: g} }

// Table returns the curve sampled at len(t) equally spaced inputs, linearly
// interpolated; values are 0..1.
func Table(t []float64) Curve { return Curve{kind: curveTable, table: t} }

// Parametric returns the ICC parametricCurveType function of type 0..4 with
// the parameters g, a, b, c, d, e, f (as many as the type has).
func Parametric(typ int, params ...float64) Curve {
	c := Curve{kind: curveParam, ptype: typ}
	copy(c.p[:], params)
	return c
}

// Eval maps an encoded value x in [0,1] to linear light, clamped to [0,1].
func (c Curve) Eval(x float64) float64 {
	x = clamp01(x)
	var y float64
	switch c.kind {
	case curveGamma:
		y = math.Pow(x, c.gamma)
	case curveTable:
		n := len(c.table)
		switch n {
		case 0:
			y = x
		case 1:
			y = c.table[0]
		default:
			pos := x * float64(n-1)
			i := min(int(pos), n-2)
			f := pos - float64(i)
			y = c.table[i]*(1-f) + c.table[i+1]*f
		}
	default:
		g, a, b, cc, d, e, f := c.p[0], c.p[1], c.p[2], c.p[3], c.p[4], c.p[5], c.p[6]
		pow := func(v float64) float64 { return math.Pow(math.Max(v, 0), g) }
		switch c.ptype {
		case 0:
			y = pow(x)
		case 1: // (aX+b)^g for X >= -b/a, else 0
			if a*x+b >= 0 && a != 0 {
				y = pow(a*x + b)
			}
		case 2: // (aX+b)^g + c for X >= -b/a, else c
			y = cc
			if a*x+b >= 0 && a != 0 {
				y = pow(a*x+b) + cc
			}
		case 3: // (aX+b)^g for X >= d, else cX
			if x >= d {
				y = pow(a*x + b)
			} else {
				y = cc * x
			}
		case 4: // (aX+b)^g + e for X >= d, else cX + f
			if x >= d {
				y = pow(a*x+b) + e
			} else {
				y = cc*x + f
			}
		}
	}
	if math.IsNaN(y) {
		return 0
	}
	return clamp01(y)
}

func clamp01(v float64) float64 {
	switch {
	case v < 0 || math.IsNaN(v):
		return 0
	case v > 1:
		return 1
	}
	return v
}

// Profile is an RGB matrix/TRC profile: the colorants (the linear RGB to
// D50 PCS XYZ matrix, columns red, green, blue) and the three curves.
type Profile struct {
	// Matrix[i][j] is XYZ component i of colorant j (ICC rXYZ, gXYZ, bXYZ).
	Matrix [3][3]float64
	// TRC are the red, green and blue tone curves (rTRC, gTRC, bTRC).
	TRC [3]Curve
	// White is the media white point (wtpt), D50 when absent. Conversions
	// do not need it: ICC v2 and v4 colorants are already adapted to D50.
	White [3]float64
}

// D50 is the ICC profile connection space's illuminant.
var D50 = [3]float64{0.9642, 1.0, 0.8249}

// SRGB returns the sRGB (IEC 61966-2.1) profile: its D50-adapted colorants
// and its exact piecewise curve.
func SRGB() *Profile {
	c := Parametric(3, 2.4, 1/1.055, 0.055/1.055, 1/12.92, 0.04045)
	return &Profile{
		Matrix: [3][3]float64{
			{0.4360747, 0.3850649, 0.1430804},
			{0.2225045, 0.7168786, 0.0606169},
			{0.0139322, 0.0971045, 0.7141733},
		},
		TRC:   [3]Curve{c, c, c},
		White: D50,
	}
}

// maxTags bounds the tag table the reader walks.
const maxTags = 1000

// Parse reads an ICC profile. It returns an error wrapping ErrNotICC for
// data that is not a profile, and ErrNotMatrixTRC for a profile that is
// not an RGB matrix/TRC one (LUT-based, greyscale, CMYK...). It does not
// panic on any input.
func Parse(data []byte) (*Profile, error) {
	if len(data) < 132 || string(data[36:40]) != "acsp" {
		return nil, fmt.Errorf("%w: no profile header", ErrNotICC)
	}
	if size := binary.BigEndian.Uint32(data); size >= 132 && uint64(size) < uint64(len(data)) {
		data = data[:size]
	}
	n := binary.BigEndian.Uint32(data[128:])
	if n > maxTags || 132+12*uint64(n) > uint64(len(data)) {
		return nil, fmt.Errorf("%w: tag table outside the profile", ErrNotICC)
	}
	tags := make(map[string][]byte, n)
	for i := range int(n) {
		e := data[132+12*i:]
		off, size := binary.BigEndian.Uint32(e[4:]), binary.BigEndian.Uint32(e[8:])
		if uint64(off)+uint64(size) > uint64(len(data)) || size < 8 {
			return nil, fmt.Errorf("%w: tag %q outside the profile", ErrNotICC, e[:4])
		}
		tags[string(e[:4])] = data[off : off+size]
	}
	if cs, pcs := string(data[16:20]), string(data[20:24]); cs != "RGB " || pcs != "XYZ " {
		return nil, fmt.Errorf("%w: colour space %q, connection space %q", ErrNotMatrixTRC, cs, pcs)
	}
	p := &Profile{White: D50}
	for j, sig := range []string{"rXYZ", "gXYZ", "bXYZ"} {
		xyz, err := readXYZ(tags[sig])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotMatrixTRC, sig, err)
		}
		for i := range 3 {
			p.Matrix[i][j] = xyz[i]
		}
	}
	for j, sig := range []string{"rTRC", "gTRC", "bTRC"} {
		c, err := readCurve(tags[sig])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotMatrixTRC, sig, err)
		}
		p.TRC[j] = c
	}
	if w, err := readXYZ(tags["wtpt"]); err == nil {
		p.White = w
	}
	if _, ok := invert(p.Matrix); !ok {
		return nil, fmt.Errorf("%w: the colorant matrix cannot be inverted", ErrNotMatrixTRC)
	}
	return p, nil
}

var errTag = errors.New("missing or malformed tag")

func s15f16(b []byte) float64 { return float64(int32(binary.BigEndian.Uint32(b))) / 65536 }

func readXYZ(t []byte) ([3]float64, error) {
	if len(t) < 20 || string(t[:4]) != "XYZ " {
		return [3]float64{}, errTag
	}
	return [3]float64{s15f16(t[8:]), s15f16(t[12:]), s15f16(t[16:])}, nil
}

// paramCount is the number of parameters of parametricCurveType 0..4.
var paramCount = [5]int{1, 3, 4, 5, 7}

// maxTable bounds a curv table (the count is a uint32).
const maxTable = 1 << 16

func readCurve(t []byte) (Curve, error) {
	if len(t) < 12 {
		return Curve{}, errTag
	}
	switch string(t[:4]) {
	case "curv":
		n := binary.BigEndian.Uint32(t[8:])
		switch {
		case n == 0:
			return Gamma(1), nil
		case n == 1 && len(t) >= 14:
			return Gamma(float64(binary.BigEndian.Uint16(t[12:])) / 256), nil
		case n > maxTable || 12+2*uint64(n) > uint64(len(t)):
			return Curve{}, errTag
		}
		tab := make([]float64, n)
		for i := range tab {
			tab[i] = float64(binary.BigEndian.Uint16(t[12+2*i:])) / 65535
		}
		return Table(tab), nil
	case "para":
		typ := int(binary.BigEndian.Uint16(t[8:]))
		if typ >= len(paramCount) || len(t) < 12+4*paramCount[typ] {
			return Curve{}, errTag
		}
		params := make([]float64, paramCount[typ])
		for i := range params {
			params[i] = s15f16(t[12+4*i:])
		}
		return Parametric(typ, params...), nil
	}
	return Curve{}, errTag
}

// invert returns the inverse of m, false when it is singular.
func invert(m [3][3]float64) ([3][3]float64, bool) {
	a, b, c := m[0][0], m[0][1], m[0][2]
	d, e, f := m[1][0], m[1][1], m[1][2]
	g, h, i := m[2][0], m[2][1], m[2][2]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if math.Abs(det) < 1e-9 || math.IsNaN(det) || math.IsInf(det, 0) {
		return [3][3]float64{}, false
	}
	return [3][3]float64{
		{(e*i - f*h) / det, (c*h - b*i) / det, (b*f - c*e) / det},
		{(f*g - d*i) / det, (a*i - c*g) / det, (c*d - a*f) / det},
		{(d*h - e*g) / det, (b*g - a*h) / det, (a*e - b*d) / det},
	}, true
}

func mul(a, b [3][3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				m[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return m
}
