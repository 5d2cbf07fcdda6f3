package colorspace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// Converter maps 8-bit RGB encoded in one profile to another, through
// linear light and the D50 connection space (relative colorimetric:
// colours outside the destination's gamut are clipped per channel).
type Converter struct {
	lin [3][256]float32 // source code -> linear
	m   [3][3]float32   // source linear RGB -> destination linear RGB
	// enc maps sqrt(linear) in 1/outSteps steps to the destination code
	// nearest in the encoded domain; the square root spends the steps on
	// the darks, where gamma curves are steep.
	enc [3][]uint8
}

const outSteps = 1 << 14

// NewConverter returns the conversion from src to dst.
func NewConverter(src, dst *Profile) (*Converter, error) {
	inv, ok := invert(dst.Matrix)
	if !ok {
		return nil, ErrNotMatrixTRC
	}
	c := &Converter{}
	m := mul(inv, src.Matrix)
	for i := range 3 {
		for j := range 3 {
			c.m[i][j] = float32(m[i][j])
		}
		for v := range 256 {
			c.lin[i][v] = float32(src.TRC[i].Eval(float64(v) / 255))
		}
		c.enc[i] = encodeTable(dst.TRC[i])
	}
	return c, nil
}

// encodeTable inverts a (non-decreasing) curve: the code k whose encoded
// interval [(k-0.5)/255, (k+0.5)/255) holds the inverse of each linear
// value, sampled at (i/outSteps)^2.
func encodeTable(c Curve) []uint8 {
	var th [255]float64 // linear value at the top of code k's interval
	for k := range th {
		th[k] = c.Eval((float64(k) + 0.5) / 255)
	}
	t := make([]uint8, outSteps+1)
	k := 0
	for i := range t {
		l := float64(i) / outSteps
		l *= l
		for k < 255 && th[k] < l {
			k++
		}
		t[i] = uint8(k)
	}
	return t
}

// Apply converts the colours of img in place; alpha is kept.
func (c *Converter) Apply(img *image.NRGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	parallel.Rows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			for x := 0; x < len(row); x += 4 {
				r, g, b := c.lin[0][row[x]], c.lin[1][row[x+1]], c.lin[2][row[x+2]]
				for i := range 3 {
					v := c.m[i][0]*r + c.m[i][1]*g + c.m[i][2]*b
					switch {
					case v <= 0 || v != v:
						v = 0
					case v > 1:
						v = 1
					}
					row[x+i] = c.enc[i][int(float32(math.Sqrt(float64(v)))*outSteps+0.5)]
				}
			}
		}
	})
}

var (
	srgbOnce  sync.Once
	srgbBytes []byte
)

// SRGBProfile returns the ICC v2 profile that outputs converted to sRGB
// embed ("sRGB (mock)": the SRGB colorants, a 1024-entry curve). The
// caller must not modify it.
func SRGBProfile() []byte {
	srgbOnce.Do(func() { srgbBytes = EncodeV2("sRGB IEC61966-2.1 (mock)", SRGB()) })
	return srgbBytes
}

// EncodeV2 writes p as a minimal ICC v2.1 display profile: desc, cprt,
// wtpt, the colorants and the curves (a gamma as curv of one entry,
// anything else sampled in 1024 entries).
func EncodeV2(desc string, p *Profile) []byte {
	type tag struct {
		sig  string
		data []byte
	}
	xyz := func(v [3]float64) []byte {
		b := []byte("XYZ \x00\x00\x00\x00")
		for _, f := range v {
			b = binary.BigEndian.AppendUint32(b, uint32(int32(math.Round(f*65536))))
		}
		return b
	}
	curve := func(c Curve) []byte {
		b := []byte("curv\x00\x00\x00\x00")
		if c.kind == curveGamma {
			b = binary.BigEndian.AppendUint32(b, 1)
			return binary.BigEndian.AppendUint16(b, uint16(math.Round(c.gamma*256)))
		}
		const n = 1024
		b = binary.BigEndian.AppendUint32(b, n)
		for i := range n {
			b = binary.BigEndian.AppendUint16(b, uint16(math.Round(c.Eval(float64(i)/(n-1))*65535)))
		}
		return b
	}
	text := func(s string) []byte { return append([]byte("text\x00\x00\x00\x00"+s), 0) }
	descTag := func(s string) []byte {
		b := []byte("desc\x00\x00\x00\x00")
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)+1))
		b = append(append(b, s...), 0)
		b = append(b, make([]byte, 4+4+2+1+67)...) // no Unicode, no ScriptCode
		return b
	}
	col := func(j int) [3]float64 { return [3]float64{p.Matrix[0][j], p.Matrix[1][j], p.Matrix[2][j]} }
	tags := []tag{
		{"desc", descTag(desc)}, {"cprt", text("No copyright, use freely")}, {"wtpt", xyz(p.White)},
		{"rXYZ", xyz(col(0))}, {"gXYZ", xyz(col(1))}, {"bXYZ", xyz(col(2))},
		{"rTRC", curve(p.TRC[0])}, {"gTRC", curve(p.TRC[1])}, {"bTRC", curve(p.TRC[2])},
	}
	var body bytes.Buffer
	table := binary.BigEndian.AppendUint32(nil, uint32(len(tags)))
	off := 128 + 4 + 12*len(tags)
	for _, t := range tags {
		for (off+body.Len())%4 != 0 {
			body.WriteByte(0)
		}
		table = append(table, t.sig...)
		table = binary.BigEndian.AppendUint32(table, uint32(off+body.Len()))
		table = binary.BigEndian.AppendUint32(table, uint32(len(t.data)))
		body.Write(t.data)
	}
	hdr := make([]byte, 128)
	binary.BigEndian.PutUint32(hdr[0:], uint32(off+body.Len()))
	binary.BigEndian.PutUint32(hdr[8:], 0x02100000) // version 2.1
	copy(hdr[12:], "mntrRGB XYZ ")
	copy(hdr[36:], "acsp")
	d50 := xyz(D50)
	copy(hdr[68:], d50[8:]) // the PCS illuminant
	out := append(hdr, table...)
	return append(out, body.Bytes()...)
}

// Convert converts img in place from the colour space of the profile
// srcICC (nil: an untagged image, sRGB) to the profile dstICC. converted
// is false, and img unchanged, when nothing needs converting (the same
// profile, or an untagged image to SRGBProfile) or when a profile cannot
// be applied; err then wraps ErrNotICC or ErrNotMatrixTRC.
func Convert(img *image.NRGBA, srcICC, dstICC []byte) (converted bool, err error) {
	if bytes.Equal(srcICC, dstICC) || (srcICC == nil && bytes.Equal(dstICC, SRGBProfile())) {
		return false, nil
	}
	src := SRGB()
	if srcICC != nil {
		if src, err = Parse(srcICC); err != nil {
			return false, fmt.Errorf("the source's profile: %w", err)
		}
	}
	dst, err := Parse(dstICC)
	if err != nil {
		return false, fmt.Errorf("the output profile: %w", err)
	}
	c, err := NewConverter(src, dst)
	if err != nil {
		return false, err
	}
	c.Apply(img)
	return true, nil
}
