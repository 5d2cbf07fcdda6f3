package colorspace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Chromaticities (x, y) of the colour spaces under test.
var (
	whiteD65 = [2]float64{0.3127, 0.3290}
	srgbXY   = [3][2]float64{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}}
	adobeXY  = [3][2]float64{{0.64, 0.33}, {0.21, 0.71}, {0.15, 0.06}}
	p3XY     = [3][2]float64{{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}}
)

func xyToXYZ(xy [2]float64) [3]float64 {
	return [3]float64{xy[0] / xy[1], 1, (1 - xy[0] - xy[1]) / xy[1]}
}

// rgbToXYZ is the linear RGB to XYZ matrix of the primaries under white.
func rgbToXYZ(t *testing.T, prim [3][2]float64, white [2]float64) [3][3]float64 {
	var p [3][3]float64
	for j := range 3 {
		c := xyToXYZ(prim[j])
		for i := range 3 {
			p[i][j] = c[i]
		}
	}
	pi, ok := invert(p)
	require.True(t, ok)
	w := xyToXYZ(white)
	for j := range 3 {
		s := pi[j][0]*w[0] + pi[j][1]*w[1] + pi[j][2]*w[2]
		for i := range 3 {
			p[i][j] *= s
		}
	}
	return p
}

// toD50 adapts a D65-relative matrix to the D50 connection space with
// Bradford, as a profile's colorants are.
func toD50(t *testing.T, m [3][3]float64, white [2]float64) [3][3]float64 {
	bf := [3][3]float64{{0.8951, 0.2664, -0.1614}, {-0.7502, 1.7135, 0.0367}, {0.0389, -0.0685, 1.0296}}
	bfi, ok := invert(bf)
	require.True(t, ok)
	cone := func(v [3]float64) [3]float64 {
		var c [3]float64
		for i := range 3 {
			c[i] = bf[i][0]*v[0] + bf[i][1]*v[1] + bf[i][2]*v[2]
		}
		return c
	}
	src, dst := cone(xyToXYZ(white)), cone(D50)
	var d [3][3]float64
	for i := range 3 {
		d[i][i] = dst[i] / src[i]
	}
	return mul(mul(bfi, mul(d, bf)), m)
}

// iccTag is one tag of a test profile.
type iccTag struct {
	sig  string
	data []byte
}

// writeICC writes a minimal ICC profile of the given version (0x02100000,
// 0x04200000), colour space and tags, independently of EncodeV2.
func writeICC(version uint32, space string, tags ...iccTag) []byte {
	var table, body []byte
	off := 132 + 12*len(tags)
	for _, tg := range tags {
		for (off+len(body))%4 != 0 {
			body = append(body, 0)
		}
		table = append(table, tg.sig...)
		table = binary.BigEndian.AppendUint32(table, uint32(off+len(body)))
		table = binary.BigEndian.AppendUint32(table, uint32(len(tg.data)))
		body = append(body, tg.data...)
	}
	hdr := make([]byte, 132)
	binary.BigEndian.PutUint32(hdr, uint32(off+len(body)))
	binary.BigEndian.PutUint32(hdr[8:], version)
	copy(hdr[12:], "mntr"+space+"XYZ ")
	copy(hdr[36:], "acsp")
	binary.BigEndian.PutUint32(hdr[128:], uint32(len(tags)))
	return append(append(hdr, table...), body...)
}

func fixed(v float64) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int32(math.Round(v*65536))))
}

func xyzTag(v [3]float64) []byte {
	b := []byte("XYZ \x00\x00\x00\x00")
	for _, f := range v {
		b = append(b, fixed(f)...)
	}
	return b
}

func gammaTag(g uint16) []byte {
	return binary.BigEndian.AppendUint16([]byte("curv\x00\x00\x00\x00\x00\x00\x00\x01"), g)
}

func paraTag(typ uint16, params ...float64) []byte {
	b := binary.BigEndian.AppendUint16([]byte("para\x00\x00\x00\x00"), typ)
	b = append(b, 0, 0)
	for _, p := range params {
		b = append(b, fixed(p)...)
	}
	return b
}

func tableTag(vals ...uint16) []byte {
	b := binary.BigEndian.AppendUint32([]byte("curv\x00\x00\x00\x00"), uint32(len(vals)))
	for _, v := range vals {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	return b
}

// matrixProfile writes an RGB matrix/TRC profile with colorants m (D50)
// and one curve tag for the three channels.
func matrixProfile(version uint32, m [3][3]float64, trc []byte) []byte {
	col := func(j int) [3]float64 { return [3]float64{m[0][j], m[1][j], m[2][j]} }
	return writeICC(version, "RGB ",
		iccTag{"wtpt", xyzTag(D50)}, iccTag{"rXYZ", xyzTag(col(0))}, iccTag{"gXYZ", xyzTag(col(1))},
		iccTag{"bXYZ", xyzTag(col(2))}, iccTag{"rTRC", trc}, iccTag{"gTRC", trc}, iccTag{"bTRC", trc})
}

// adobeRGB is an ICC v2 Adobe RGB (1998) profile: gamma 563/256.
func adobeRGB(t *testing.T) []byte {
	return matrixProfile(0x02100000, toD50(t, rgbToXYZ(t, adobeXY, whiteD65), whiteD65), gammaTag(563))
}

// displayP3 is an ICC v4 Display P3 profile: the sRGB curve as para type 3.
func displayP3(t *testing.T) []byte {
	return matrixProfile(0x04200000, toD50(t, rgbToXYZ(t, p3XY, whiteD65), whiteD65),
		paraTag(3, 2.4, 1/1.055, 0.055/1.055, 1/12.92, 0.04045))
}

func srgbDecode(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func srgbEncode(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// reference converts one colour with the D65 matrices of both spaces (no
// adaptation: both are D65) in float64.
func reference(t *testing.T, c [3]uint8, srcXY [3][2]float64, decode func(float64) float64,
	dstXY [3][2]float64, encode func(float64) float64) [3]uint8 {
	src := rgbToXYZ(t, srcXY, whiteD65)
	dsti, ok := invert(rgbToXYZ(t, dstXY, whiteD65))
	require.True(t, ok)
	m := mul(dsti, src)
	var lin, out [3]float64
	for i := range 3 {
		lin[i] = decode(float64(c[i]) / 255)
	}
	var res [3]uint8
	for i := range 3 {
		out[i] = clamp01(m[i][0]*lin[0] + m[i][1]*lin[1] + m[i][2]*lin[2])
		res[i] = uint8(math.Round(encode(out[i]) * 255))
	}
	return res
}

var testColours = [][3]uint8{
	{0, 0, 0}, {255, 255, 255}, {128, 128, 128}, {200, 120, 80}, {40, 180, 90}, {30, 60, 200},
	{250, 20, 20}, {10, 250, 10}, {5, 3, 2}, {230, 200, 150}, {90, 40, 140},
}

// convertColours runs Convert on an image of cols and returns the result.
func convertColours(t *testing.T, cols [][3]uint8, src, dst []byte) ([][3]uint8, bool) {
	img := image.NewNRGBA(image.Rect(0, 0, len(cols), 1))
	for i, c := range cols {
		img.SetNRGBA(i, 0, color.NRGBA{c[0], c[1], c[2], uint8(100 + i)})
	}
	conv, err := Convert(img, src, dst)
	require.NoError(t, err)
	out := make([][3]uint8, len(cols))
	for i := range cols {
		p := img.NRGBAAt(i, 0)
		out[i] = [3]uint8{p.R, p.G, p.B}
		assert.Equal(t, uint8(100+i), p.A, "alpha is kept")
	}
	return out, conv
}

func assertNear(t *testing.T, want, got [3]uint8, msg string, args ...any) {
	t.Helper()
	for i := range 3 {
		assert.InDelta(t, float64(want[i]), float64(got[i]), 1, fmt.Sprintf(msg, args...)+fmt.Sprintf(" channel %d: want %v got %v", i, want, got))
	}
}

func maxDiff(a, b [3]uint8) int {
	d := 0
	for i := range 3 {
		d = max(d, int(math.Abs(float64(a[i])-float64(b[i]))))
	}
	return d
}

func TestConvertAdobeRGBToSRGB(t *testing.T) {
	t.Parallel()
	adobeGamma := func(v float64) float64 { return math.Pow(v, 563.0/256) }
	out, conv := convertColours(t, testColours, adobeRGB(t), SRGBProfile())
	require.True(t, conv)
	changed := 0
	for i, c := range testColours {
		assertNear(t, reference(t, c, adobeXY, adobeGamma, srgbXY, srgbEncode), out[i], "Adobe RGB %v", c)
		if maxDiff(c, out[i]) >= 5 {
			changed++
		}
	}
	assert.GreaterOrEqual(t, changed, 5, "saturated colours change")
}

func TestConvertDisplayP3(t *testing.T) {
	t.Parallel()
	p3 := displayP3(t)
	out, conv := convertColours(t, testColours, p3, SRGBProfile())
	require.True(t, conv)
	for i, c := range testColours {
		assertNear(t, reference(t, c, p3XY, srgbDecode, srgbXY, srgbEncode), out[i], "P3 to sRGB %v", c)
	}
	// An untagged (sRGB) image to the P3 profile, and back.
	out, conv = convertColours(t, testColours, nil, p3)
	require.True(t, conv)
	for i, c := range testColours {
		assertNear(t, reference(t, c, srgbXY, srgbDecode, p3XY, srgbEncode), out[i], "sRGB to P3 %v", c)
	}
	back, _ := convertColours(t, out, p3, SRGBProfile())
	for i, c := range testColours {
		assertNear(t, c, back[i], "round trip %v", c)
	}
}

func TestConvertNothingToDo(t *testing.T) {
	t.Parallel()
	p3 := displayP3(t)
	out, conv := convertColours(t, testColours, p3, p3)
	assert.False(t, conv)
	assert.Equal(t, testColours, out)
	out, conv = convertColours(t, testColours, nil, SRGBProfile())
	assert.False(t, conv)
	assert.Equal(t, testColours, out)
}

func TestSRGBProfileReadsBack(t *testing.T) {
	t.Parallel()
	p, err := Parse(SRGBProfile())
	require.NoError(t, err)
	want := SRGB()
	for i := range 3 {
		for j := range 3 {
			assert.InDelta(t, want.Matrix[i][j], p.Matrix[i][j], 1e-4)
		}
		for v := 0; v <= 255; v += 5 {
			assert.InDelta(t, srgbDecode(float64(v)/255), p.TRC[i].Eval(float64(v)/255), 2e-4)
		}
	}
	assert.InDelta(t, 0.9642, p.White[0], 1e-4)
}

func TestCurveTypes(t *testing.T) {
	t.Parallel()
	g, a, b, c, d, e, f := 2.2, 0.9, 0.1, 0.2, 0.3, 0.05, 0.01
	tests := []struct {
		name string
		tag  []byte
		want func(x float64) float64
	}{
		{"identity", tableTag(), func(x float64) float64 { return x }},
		{"gamma", gammaTag(512 + 128), func(x float64) float64 { return math.Pow(x, 2.5) }},
		{"table", tableTag(0, 16384, 65535), func(x float64) float64 {
			if x < 0.5 {
				return x * 2 * 16384 / 65535
			}
			return (16384 + (x-0.5)*2*(65535-16384)) / 65535
		}},
		{"para 0", paraTag(0, g), func(x float64) float64 { return math.Pow(x, g) }},
		{"para 1", paraTag(1, g, a, -b), func(x float64) float64 {
			if x >= b/a {
				return math.Pow(a*x-b, g)
			}
			return 0
		}},
		{"para 2", paraTag(2, g, a, -b, c), func(x float64) float64 {
			if x >= b/a {
				return math.Min(math.Pow(a*x-b, g)+c, 1)
			}
			return c
		}},
		{"para 3", paraTag(3, g, a, b, c, d), func(x float64) float64 {
			if x >= d {
				return math.Pow(a*x+b, g)
			}
			return c * x
		}},
		{"para 4", paraTag(4, g, a, b, c, d, e, f), func(x float64) float64 {
			if x >= d {
				return math.Min(math.Pow(a*x+b, g)+e, 1)
			}
			return c*x + f
		}},
	}
	for _, tc := range tests {
		cv, err := readCurve(tc.tag)
		require.NoError(t, err, tc.name)
		for x := 0.0; x <= 1; x += 1.0 / 64 {
			assert.InDelta(t, tc.want(x), cv.Eval(x), 1e-4, "%s at %g", tc.name, x)
		}
	}
	for _, bad := range [][]byte{paraTag(5, 1), paraTag(4, 1, 2, 3), []byte("curv\x00\x00\x00\x00\x00\x00\x00\x09\x00"), []byte("sf32\x00\x00\x00\x00\x00\x00\x00\x00")} {
		_, err := readCurve(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestParseRefusesWhatItCannotApply(t *testing.T) {
	t.Parallel()
	valid := adobeRGB(t)
	_, err := Parse(valid)
	require.NoError(t, err)

	_, err = Parse([]byte("not a profile at all"))
	assert.ErrorIs(t, err, ErrNotICC)
	lut := writeICC(0x04200000, "RGB ", iccTag{"A2B0", []byte("mAB \x00\x00\x00\x00\x03\x03\x00\x00")},
		iccTag{"wtpt", xyzTag(D50)})
	_, err = Parse(lut)
	assert.ErrorIs(t, err, ErrNotMatrixTRC, "a LUT-based profile")
	gray := writeICC(0x02100000, "GRAY", iccTag{"kTRC", gammaTag(563)})
	_, err = Parse(gray)
	assert.ErrorIs(t, err, ErrNotMatrixTRC)
	singular := matrixProfile(0x02100000, [3][3]float64{{1, 1, 0}, {1, 1, 0}, {0, 0, 1}}, gammaTag(256))
	_, err = Parse(singular)
	assert.ErrorIs(t, err, ErrNotMatrixTRC)

	// Every truncation and single-byte corruption is refused or read,
	// never a panic.
	for n := range len(valid) {
		_, _ = Parse(valid[:n])
		c := bytes.Clone(valid)
		c[n] ^= 0xA5
		_, _ = Parse(c)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(SRGBProfile())
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		c, err := NewConverter(p, SRGB())
		if err != nil {
			return
		}
		img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 7)
		}
		c.Apply(img)
	})
}
