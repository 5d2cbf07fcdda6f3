package imageio

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func encodeBytes(t testing.TB, m *image.NRGBA, o EncodeOptions) []byte {
	var buf bytes.Buffer
	require.NoError(t, Encode(&buf, m, o))
	return buf.Bytes()
}

func TestJPEGStripsDecodeLikeOneStream(t *testing.T) {
	t.Parallel()
	// Widths that are no multiple of the 16 px MCU, each with a last strip
	// that is no multiple of 16 rows. 16390 px wide: strips of 16 rows
	// (a quarter of jpegStripPixels), so that 145 rows make 10 strips, the
	// last of one row, and the restart markers wrap from RST7 to RST0 in
	// 2.4 MP, where a common width takes 4 MP or more. The build tag heavy
	// adds the larger cases this test had: three strips at 1000 and 333 px
	// wide, and eleven at 4000×1300.
	require.Equal(t, 16, jpegStripRows(16390))
	sizes := [][2]int{{1000, 600}, {333, 1700}, {17, 40}, {16390, 145}}
	if heavyTests {
		sizes = append(sizes, [2]int{1000, 1100}, [2]int{333, 3300}, [2]int{4000, 1300})
	}
	if raceEnabled {
		// Under the race detector, whose subject is the strips' goroutines:
		// two strips, the last not a multiple of 16 rows, and one. The odd
		// width and the markers' wrap are bytes, checked without it.
		sizes = [][2]int{{1000, 600}, {17, 40}}
	}
	for _, size := range sizes {
		m := naturalImage(size[0], size[1], 3)
		ours := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 85})
		strips := (size[1] + jpegStripRows(size[0]) - 1) / jpegStripRows(size[0])
		if strips > 1 {
			assert.True(t, bytes.Contains(ours, []byte{0xff, markerDRI, 0, 4}), "%v: expected restart markers", size)
			// Restart markers cycle RST0..RST7.
			assert.Equal(t, strips > 8, bytes.Contains(ours, []byte{0xff, markerRST0 + 7}) && bytes.Contains(ours, []byte{0xff, markerRST0}), "%v", size)
		}
		got, err := jpeg.Decode(bytes.NewReader(ours))
		require.NoError(t, err)
		want, err := jpeg.Decode(bytes.NewReader(stdJPEG(t, m, 85)))
		require.NoError(t, err)
		// Same quantised coefficients, so the very same decoded pixels.
		require.Equal(t, want.(*image.YCbCr).Y, got.(*image.YCbCr).Y, "%v luma", size)
		require.Equal(t, want.(*image.YCbCr).Cb, got.(*image.YCbCr).Cb, "%v Cb", size)
		require.Equal(t, want.(*image.YCbCr).Cr, got.(*image.YCbCr).Cr, "%v Cr", size)
	}
}

func TestEncodeSameBytesForAnyCoreCount(t *testing.T) {
	// Both images need several JPEG strips and several PNG deflate parts:
	// two strips and three parts each (the last of two rows for alpha), as
	// at 800×1100 and 400×1500 before, in a sixth fewer pixels.
	jpegStrips := func(w, h int) int { return (h + jpegStripRows(w) - 1) / jpegStripRows(w) }
	pngParts := func(w, h, bpp int) int {
		rows := max(1, pngPartSize/(1+w*bpp))
		return (h + rows - 1) / rows
	}
	require.Equal(t, [2]int{2, 3}, [2]int{jpegStrips(800, 900), pngParts(800, 900, 3)})
	require.Equal(t, [2]int{2, 3}, [2]int{jpegStrips(400, 1310), pngParts(400, 1310, 4)})
	ow, oh, aw, ah := 800, 900, 400, 1310
	if raceEnabled {
		// Under the race detector still two strips and several parts each
		// (the goroutines it checks), in a sixth fewer pixels: the last
		// strip of one row, the parts two and three.
		ow, oh, aw, ah = 1024, 513, 512, 1025
		require.Equal(t, [2]int{2, 2}, [2]int{jpegStrips(ow, oh), pngParts(ow, oh, 3)})
		require.Equal(t, [2]int{2, 3}, [2]int{jpegStrips(aw, ah), pngParts(aw, ah, 4)})
	}
	m := naturalImage(ow, oh, 4)
	alpha := naturalImage(aw, ah, 5)
	for i := 3; i < len(alpha.Pix); i += 4 {
		alpha.Pix[i] = uint8(i / 4 % 251)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, o := range []EncodeOptions{{Format: FormatJPEG}, {Format: FormatPNG}} {
		for _, img := range []*image.NRGBA{m, alpha} {
			runtime.GOMAXPROCS(1)
			want := encodeBytes(t, img, o)
			for _, procs := range []int{2, 5} {
				runtime.GOMAXPROCS(procs)
				require.Equal(t, want, encodeBytes(t, img, o), "%s with GOMAXPROCS %d", o.Format, procs)
			}
		}
	}
}

func TestPNGIsLossless(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewSource(1))
	opaque := naturalImage(900, 700, 6) // > 1 MiB of filtered rows: several parts
	alpha := naturalImage(800, 600, 7)
	if raceEnabled {
		// Under the race detector, whose subject is the parts' goroutines:
		// two parts each (the second of one row), in half the pixels.
		opaque, alpha = naturalImage(800, 437, 6), naturalImage(800, 328, 7)
	}
	for i := 3; i < len(alpha.Pix); i += 4 {
		alpha.Pix[i] = uint8(rnd.Intn(256))
	}
	tiny := naturalImage(1, 1, 8)
	sub := naturalImage(300, 200, 9).SubImage(image.Rect(7, 9, 250, 190)).(*image.NRGBA)
	for name, m := range map[string]*image.NRGBA{"opaque": opaque, "alpha": alpha, "tiny": tiny, "sub": sub} {
		t.Run(name, func(t *testing.T) {
			data := encodeBytes(t, m, EncodeOptions{Format: FormatPNG})
			got, err := png.Decode(bytes.NewReader(data))
			require.NoError(t, err, "image/png must read it (CRCs, zlib checksum)")
			b := m.Rect
			require.Equal(t, b.Size(), got.Bounds().Size())
			// at is got's pixel as NRGBA: read directly where image/png
			// returns NRGBA or opaque RGBA (the same bytes), else converted.
			at := func(x, y int) color.NRGBA {
				switch g := got.(type) {
				case *image.NRGBA:
					return g.NRGBAAt(x, y)
				case *image.RGBA:
					if c := g.RGBAAt(x, y); c.A == 255 {
						return color.NRGBA{c.R, c.G, c.B, 255}
					}
				}
				return color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
			}
			for y := 0; y < b.Dy(); y++ {
				for x := 0; x < b.Dx(); x++ {
					want := m.NRGBAAt(b.Min.X+x, b.Min.Y+y)
					g := at(x, y)
					if want.A == 0 {
						if g.A != 0 {
							require.Equal(t, uint8(0), g.A)
						}
						continue
					}
					if g != want { // testify per pixel costs more than the codec
						require.Equal(t, want, g, "(%d,%d)", x, y)
					}
				}
			}
			if name == "opaque" {
				assert.IsType(t, &image.RGBA{}, got, "opaque images are written as RGB")
			}
		})
	}
}

func TestAdler32Combine(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewSource(2))
	data := make([]byte, 300_000)
	rnd.Read(data)
	for _, cut := range []int{0, 1, 65520, 65521, 65522, 100_000, 299_999, 300_000} {
		a, b := data[:cut], data[cut:]
		assert.Equal(t, adler32.Checksum(data), adler32Combine(adler32.Checksum(a), adler32.Checksum(b), len(b)), "cut %d", cut)
	}
}

func TestJPEGFlattensAlphaOntoWhite(t *testing.T) {
	t.Parallel()
	m := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = 0, 0, 0, 0
	}
	m.SetNRGBA(20, 20, color.NRGBA{0, 0, 0, 255})
	data := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 100})
	img, err := Decode(bytes.NewReader(data), Limits{})
	require.NoError(t, err)
	c := img.Pix.NRGBAAt(4, 4)
	assert.Equal(t, color.NRGBA{255, 255, 255, 255}, c, "transparent becomes white, not black")
	assert.Less(t, int(img.Pix.NRGBAAt(20, 20).R), 100)
}

func TestEncodeQuality(t *testing.T) {
	t.Parallel()
	m := naturalImage(200, 200, 1)
	q40 := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 40})
	q90 := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 90})
	def := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG})
	q100 := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 100})
	over := encodeBytes(t, m, EncodeOptions{Format: FormatJPEG, Quality: 1000})
	assert.Less(t, len(q40), len(q90))
	assert.Equal(t, q90, def)
	assert.Equal(t, q100, over)
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	m := naturalImage(10, 10, 1)
	err := Encode(&bytes.Buffer{}, m, EncodeOptions{Format: "gif"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "imageio: ")
	require.Error(t, Encode(&bytes.Buffer{}, nil, EncodeOptions{Format: FormatJPEG}))
	require.Error(t, Encode(&bytes.Buffer{}, image.NewNRGBA(image.Rect(0, 0, 0, 5)), EncodeOptions{Format: FormatPNG}))
	wide := image.NewNRGBA(image.Rect(0, 0, 70_000, 1))
	require.ErrorIs(t, Encode(&bytes.Buffer{}, wide, EncodeOptions{Format: FormatJPEG}), ErrJPEGTooLarge)
	require.NoError(t, Encode(&bytes.Buffer{}, wide, EncodeOptions{Format: FormatPNG}))
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestEncodeWriteErrors(t *testing.T) {
	t.Parallel()
	m := naturalImage(100, 100, 1)
	for _, f := range []Format{FormatJPEG, FormatPNG} {
		require.ErrorIs(t, Encode(failWriter{}, m, EncodeOptions{Format: f}), assert.AnError)
	}
}

func TestFormatHelpers(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{"jpg": FormatJPEG, "JPEG": FormatJPEG, " jpeg ": FormatJPEG, "image/jpeg": FormatJPEG, "png": FormatPNG, "PNG": FormatPNG, "image/png": FormatPNG} {
		f, ok := ParseFormat(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, f, in)
	}
	_, ok := ParseFormat("original")
	assert.False(t, ok)
	assert.Equal(t, "image/jpeg", FormatJPEG.MIMEType())
	assert.Equal(t, "image/png", FormatPNG.MIMEType())
	assert.Equal(t, ".jpg", FormatJPEG.Extension())
	assert.Equal(t, ".png", FormatPNG.Extension())
	f, ok := Sniff([]byte{0xff, 0xd8, 0xff, 0xe1})
	assert.True(t, ok)
	assert.Equal(t, FormatJPEG, f)
	f, ok = Sniff(pngMagic)
	assert.True(t, ok)
	assert.Equal(t, FormatPNG, f)
	_, ok = Sniff([]byte{0xff, 0xd8})
	assert.False(t, ok)
}
