package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func requireReject(t *testing.T, err error, reason RejectReason) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrRejected)
	var re *RejectError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, reason, re.Reason, re.Detail)
	assert.True(t, strings.HasPrefix(err.Error(), "imageio: "), err.Error())
	assert.NotErrorIs(t, err, ErrCorrupt)
}

func requireCorrupt(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrCorrupt)
	assert.NotErrorIs(t, err, ErrRejected)
	var re *RejectError
	assert.False(t, errors.As(err, &re))
	assert.True(t, strings.HasPrefix(err.Error(), "imageio: "), err.Error())
}

func TestLimitsBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lim    Limits
		w, h   int
		reason RejectReason // "" = accepted
	}{
		{"hosted 33x33 ok", HostedLimits, 33, 33, ""},
		{"hosted 32 wide rejected", HostedLimits, 32, 100, ReasonTooSmall},
		{"hosted 32 high rejected", HostedLimits, 100, 32, ReasonTooSmall},
		// With aspect < 21:1 and < 200 MP, a 100,000 px long side can never
		// pass the other hosted limits; the long-side rule alone is checked.
		{"long 100000 ok", Limits{MaxLongSide: HostedLimits.MaxLongSide}, 100_000, 5000, ""},
		{"hosted long 100001 rejected", HostedLimits, 100_001, 5000, ReasonTooLarge},
		{"hosted aspect just below 21 ok", HostedLimits, 2099, 100, ""},
		{"hosted aspect 21:1 rejected", HostedLimits, 2100, 100, ReasonAspect},
		{"hosted aspect portrait rejected", HostedLimits, 100, 2100, ReasonAspect},
		{"hosted just below 200 MP ok", HostedLimits, 20000, 9999, ""},
		{"hosted 200 MP rejected", HostedLimits, 20000, 10000, ReasonMegapixels},
		{"container 32x32 ok", ContainerLimits, 32, 32, ""},
		{"container 31 rejected", ContainerLimits, 31, 1000, ReasonTooSmall},
		{"container no aspect limit", ContainerLimits, 32, 32 * 100, ""},
		{"container no long-side limit", ContainerLimits, 200_000, 40, ""},
		{"container memory guard", ContainerLimits, 20000, 10000, ReasonMegapixels},
		{"zero limits accept anything", Limits{}, 1, 1, ""},
		{"no pixels", Limits{}, 0, 10, ReasonTooSmall},
		{"negative", Limits{}, -5, 10, ReasonTooSmall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.lim.Check(tt.w, tt.h)
			if tt.reason == "" {
				assert.NoError(t, err)
				return
			}
			requireReject(t, err, tt.reason)
		})
	}
}

func TestDecodeChecksLimitsBeforeDecoding(t *testing.T) {
	t.Parallel()
	small := stdJPEG(t, naturalImage(40, 60, 1), 90)
	_, err := Decode(bytes.NewReader(small), Limits{MinSide: 41})
	requireReject(t, err, ReasonTooSmall)
	img, err := Decode(bytes.NewReader(small), Limits{MinSide: 40})
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 40, 60), img.Pix.Rect)

	// A PNG header claiming 10^10 pixels with no data behind it: rejected
	// from the header, no pixel memory is touched.
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], 100_000)
	binary.BigEndian.PutUint32(hdr[4:], 100_000)
	hdr[8], hdr[9] = 8, 6
	huge := append(append([]byte{}, pngMagic...), appendChunk(nil, "IHDR", hdr[:])...)
	_, err = Decode(bytes.NewReader(huge), HostedLimits)
	requireReject(t, err, ReasonMegapixels)
	_, err = Decode(bytes.NewReader(huge), ContainerLimits)
	requireReject(t, err, ReasonMegapixels)
}

func TestDecodeRejectsNonImages(t *testing.T) {
	t.Parallel()
	inputs := map[string][]byte{
		"empty": nil,
		"text":  []byte("hello, world"),
		"one":   {0xff},
		"gif":   []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
		"webp":  []byte("RIFF\x1a\x00\x00\x00WEBPVP8 "),
		"tiff":  []byte("II*\x00\x08\x00\x00\x00"),
		"mp4":   []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"),
		"heic":  []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"),
		"bmp":   []byte("BM\x00\x00"),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(data), HostedLimits)
			requireReject(t, err, ReasonFormat)
		})
	}
}

func TestDecodeCorruptIsNotARejection(t *testing.T) {
	t.Parallel()
	j := stdJPEG(t, naturalImage(200, 150, 1), 90)
	p := pngWithChunks(t, naturalImage(200, 150, 1), nil)
	inputs := map[string][]byte{
		"truncated jpeg scan":   j[:len(j)/2],
		"truncated jpeg header": j[:20],
		"jpeg magic only":       {0xff, 0xd8, 0xff},
		"jpeg garbage header":   append([]byte{0xff, 0xd8, 0xff, 0x00}, bytes.Repeat([]byte{7}, 100)...),
		"truncated png":         p[:len(p)/2],
		"png magic only":        pngMagic,
	}
	// A PNG with one flipped bit inside IDAT fails its CRC.
	bad := bytes.Clone(p)
	bad[len(bad)-30] ^= 0x10
	inputs["png bad crc"] = bad
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(data), HostedLimits)
			requireCorrupt(t, err)
		})
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		k := copy(p, bytes.Repeat([]byte{0xff, 0xd8, 0xff, 0xe0}, 8)[:min(len(p), f.n)])
		f.n -= k
		return k, nil
	}
	return 0, io.ErrClosedPipe
}

func TestDecodeReadErrorIsPassedOn(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 3, 20} {
		_, err := Decode(&failingReader{n: n}, HostedLimits)
		require.ErrorIs(t, err, io.ErrClosedPipe)
		assert.NotErrorIs(t, err, ErrRejected)
	}
}

// cmykJPEG builds a valid 8x8 four-component baseline JPEG (Adobe, CMYK):
// every coefficient is zero, coded with one-symbol Huffman tables.
func cmykJPEG() []byte {
	var b []byte
	b = append(b, 0xff, markerSOI)
	b = append(b, segment(0xee, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00"))...) // transform 0: CMYK
	dqt := append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)
	b = append(b, segment(0xdb, dqt)...)
	b = append(b, segment(0xc0, []byte{8, 0, 8, 0, 8, 4, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0})...)
	counts := append([]byte{1}, make([]byte, 15)...)
	b = append(b, segment(0xc4, []byte{0x00}, counts, []byte{0})...) // DC: category 0 = "0"
	b = append(b, segment(0xc4, []byte{0x10}, counts, []byte{0})...) // AC: EOB = "0"
	b = append(b, segment(markerSOS, []byte{4, 1, 0, 2, 0, 3, 0, 4, 0, 0, 63, 0})...)
	b = append(b, 0x00) // 4 blocks x ("0" DC, "0" EOB) = 8 zero bits
	return append(b, 0xff, markerEOI)
}

func TestDecodeRejectsCMYK(t *testing.T) {
	t.Parallel()
	data := cmykJPEG()
	m, err := jpeg.Decode(bytes.NewReader(data))
	require.NoError(t, err, "the test file must be a valid JPEG")
	require.IsType(t, &image.CMYK{}, m)
	_, err = Decode(bytes.NewReader(data), Limits{})
	requireReject(t, err, ReasonColorModel)
}

func TestDecodeRejectsUnsupportedJPEGVariant(t *testing.T) {
	t.Parallel()
	// Arithmetic-coded (SOF9) JPEG: a JPEG the decoder cannot read.
	data := cmykJPEG()
	i := bytes.Index(data, []byte{0xff, 0xc0})
	data[i+1] = 0xc9
	_, err := Decode(bytes.NewReader(data), Limits{})
	requireReject(t, err, ReasonFormat)
}

func TestDecodeColourModels(t *testing.T) {
	t.Parallel()
	const w, h = 40, 36
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	nrgba64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.NRGBA{10, 20, 30, 255}, color.NRGBA{200, 100, 50, 128}, color.NRGBA{0, 0, 0, 0}})
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(x * 6)
			gray.SetGray(x, y, color.Gray{v})
			gray16.SetGray16(x, y, color.Gray16{uint16(v)<<8 | 0x7f})
			rgba64.SetRGBA64(x, y, color.RGBA64{uint16(v) << 8, 0x1234, 0xfedc, 0xffff})
			nrgba64.SetNRGBA64(x, y, color.NRGBA64{uint16(v) << 8, 0x1234, 0xfedc, 0x8000})
			pal.SetColorIndex(x, y, uint8((x+y)%3))
			nrgba.SetNRGBA(x, y, color.NRGBA{v, 7, 9, uint8(y * 7)})
		}
	}
	check := func(name string, data []byte, want func(x, y int) color.NRGBA, tol int) {
		t.Run(name, func(t *testing.T) {
			img, err := Decode(bytes.NewReader(data), ContainerLimits)
			require.NoError(t, err)
			require.Equal(t, image.Rect(0, 0, w, h), img.Pix.Rect)
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					got, exp := img.Pix.NRGBAAt(x, y), want(x, y)
					if near(exp.R, got.R, tol) && near(exp.G, got.G, tol) && near(exp.B, got.B, tol) && exp.A == got.A {
						continue // testify per pixel costs more than the decode
					}
					require.InDelta(t, exp.R, got.R, float64(tol), "(%d,%d) %v vs %v", x, y, got, exp)
					require.InDelta(t, exp.G, got.G, float64(tol), "(%d,%d) %v vs %v", x, y, got, exp)
					require.InDelta(t, exp.B, got.B, float64(tol), "(%d,%d) %v vs %v", x, y, got, exp)
					require.Equal(t, exp.A, got.A, "(%d,%d)", x, y)
				}
			}
		})
	}
	enc := func(m image.Image) []byte {
		var buf bytes.Buffer
		require.NoError(t, png.Encode(&buf, m))
		return buf.Bytes()
	}
	grayWant := func(x, y int) color.NRGBA { v := uint8(x * 6); return color.NRGBA{v, v, v, 255} }
	check("gray png", enc(gray), grayWant, 0)
	check("gray jpeg", stdJPEG(t, gray, 100), grayWant, 2)
	check("gray16 png", enc(gray16), grayWant, 0)
	check("rgba64 png", enc(rgba64), func(x, y int) color.NRGBA { return color.NRGBA{uint8(x * 6), 0x12, 0xfe, 255} }, 0)
	check("nrgba64 png", enc(nrgba64), func(x, y int) color.NRGBA { return color.NRGBA{uint8(x * 6), 0x12, 0xfe, 0x80} }, 0)
	check("paletted png", enc(pal), func(x, y int) color.NRGBA { return pal.Palette[(x+y)%3].(color.NRGBA) }, 0)
	check("nrgba png", enc(nrgba), func(x, y int) color.NRGBA {
		return color.NRGBA{uint8(x * 6), 7, 9, uint8(y * 7)}
	}, 1) // image/png stores premultiplied-free RGBA; rounding at low alpha
}

func TestDecodeYCbCrSubsamplingMatchesStdlib(t *testing.T) {
	t.Parallel()
	src := naturalImage(61, 47, 5)
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		y := image.NewYCbCr(src.Rect, ratio)
		for py := 0; py < 47; py++ {
			for px := 0; px < 61; px++ {
				c := src.NRGBAAt(px, py)
				yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
				y.Y[y.YOffset(px, py)] = yy
				y.Cb[y.COffset(px, py)] = cb
				y.Cr[y.COffset(px, py)] = cr
			}
		}
		// Sub-image with odd origin exercises the chroma offsets.
		sub := y.SubImage(image.Rect(3, 5, 61, 47)).(*image.YCbCr)
		got := toNRGBA(sub)
		for py := 0; py < 42; py++ {
			for px := 0; px < 58; px++ {
				want := color.NRGBAModel.Convert(sub.At(3+px, 5+py)).(color.NRGBA)
				require.Equal(t, want, got.NRGBAAt(px, py), "ratio %v at (%d,%d)", ratio, px, py)
			}
		}
	}
}

func TestDecodeKeepsPNGTransparency(t *testing.T) {
	t.Parallel()
	m := image.NewNRGBA(image.Rect(0, 0, 50, 40))
	m.SetNRGBA(10, 10, color.NRGBA{255, 0, 0, 77})
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, m))
	img, err := Decode(bytes.NewReader(buf.Bytes()), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, color.NRGBA{255, 0, 0, 77}, img.Pix.NRGBAAt(10, 10))
	assert.Equal(t, uint8(0), img.Pix.NRGBAAt(0, 0).A)
}

func TestChunkCRCHelper(t *testing.T) {
	t.Parallel()
	c := appendChunk(nil, "tEXt", []byte("a\x00b"))
	assert.Equal(t, crc32.ChecksumIEEE(c[4:len(c)-4]), binary.BigEndian.Uint32(c[len(c)-4:]))
}

func TestCorruptErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := Decode(bytes.NewReader([]byte{0xff, 0xd8, 0xff}), HostedLimits)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the decoder's error stays reachable")
	assert.Equal(t, "imageio: corrupt jpeg header: unexpected EOF", err.Error())
}

// near reports whether a and b differ by at most tol, as InDelta checks.
func near(a, b uint8, tol int) bool {
	d := int(a) - int(b)
	return -tol <= d && d <= tol
}
