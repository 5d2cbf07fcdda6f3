package imageio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quadrants is the upright test picture: 64x32, four distinct colours, so
// every one of the eight orientations gives a different arrangement.
func quadrants() *image.NRGBA {
	cols := [4]color.NRGBA{{230, 30, 30, 255}, {30, 200, 40, 255}, {40, 50, 220, 255}, {240, 240, 60, 255}}
	m := image.NewNRGBA(image.Rect(0, 0, 64, 32))
	for y := 0; y < 32; y++ {
		for x := 0; x < 64; x++ {
			m.SetNRGBA(x, y, cols[(y/16)*2+x/32])
		}
	}
	return m
}

// storedFor returns how a camera stores the upright picture u with EXIF
// orientation o, built from the EXIF specification's wording ("the 0th row
// is the visual top/bottom/left/right, the 0th column is the visual
// left/right/top/bottom") rather than from Orient's code.
func storedFor(u *image.NRGBA, o int) *image.NRGBA {
	uw, uh := u.Rect.Dx(), u.Rect.Dy()
	row0 := map[int]string{1: "top", 2: "top", 3: "bottom", 4: "bottom", 5: "left", 6: "right", 7: "right", 8: "left"}[o]
	col0 := map[int]string{1: "left", 2: "right", 3: "right", 4: "left", 5: "top", 6: "top", 7: "bottom", 8: "bottom"}[o]
	sw, sh := uw, uh
	if row0 == "left" || row0 == "right" {
		sw, sh = uh, uw
	}
	s := image.NewNRGBA(image.Rect(0, 0, sw, sh))
	for r := 0; r < sh; r++ {
		for c := 0; c < sw; c++ {
			var x, y int
			// Stored row r runs along the visual side named by row0, moving
			// away from it; stored column c likewise from col0.
			switch row0 {
			case "top":
				y = r
			case "bottom":
				y = uh - 1 - r
			case "left":
				x = r
			case "right":
				x = uw - 1 - r
			}
			switch col0 {
			case "left":
				x = c
			case "right":
				x = uw - 1 - c
			case "top":
				y = c
			case "bottom":
				y = uh - 1 - c
			}
			s.SetNRGBA(c, r, u.NRGBAAt(x, y))
		}
	}
	return s
}

func pngWithChunks(t testing.TB, m image.Image, chunks []byte) []byte {
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, m))
	b := buf.Bytes()
	const ihdrEnd = 8 + 25
	out := append([]byte{}, b[:ihdrEnd]...)
	out = append(out, chunks...)
	return append(out, b[ihdrEnd:]...)
}

func maxDiff(t *testing.T, a, b *image.NRGBA) int {
	require.Equal(t, a.Rect, b.Rect)
	worst := 0
	for i := range a.Pix {
		d := int(a.Pix[i]) - int(b.Pix[i])
		worst = max(worst, d, -d)
	}
	return worst
}

func TestDecodeAppliesAllEightOrientations(t *testing.T) {
	t.Parallel()
	upright := quadrants()
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for o := 1; o <= 8; o++ {
			stored := storedFor(upright, o)
			exif := exifWithOrientation(order, uint16(o))
			files := map[string][]byte{
				"jpeg": withSegments(stdJPEG(t, stored, 95), segment(markerAPP1, exifHeader, exif)),
				"png":  pngWithChunks(t, stored, appendChunk(nil, "eXIf", exif)),
			}
			for kind, data := range files {
				t.Run(fmt.Sprintf("%s/%v/%d", kind, order, o), func(t *testing.T) {
					img, err := Decode(bytes.NewReader(data), Limits{})
					require.NoError(t, err)
					assert.Equal(t, o, img.Orientation)
					assert.Equal(t, stored.Rect.Dx(), img.OriginalWidth)
					assert.Equal(t, stored.Rect.Dy(), img.OriginalHeight)
					tol := 0
					if kind == "jpeg" {
						tol = 12
					}
					require.LessOrEqual(t, maxDiff(t, upright, img.Pix), tol, "pixels are not upright")

					// Re-encoding writes orientation 1, so the upright pixels
					// are not rotated a second time.
					for _, f := range []Format{FormatJPEG, FormatPNG} {
						var out bytes.Buffer
						require.NoError(t, Encode(&out, img.Pix, EncodeOptions{Format: f, Quality: 95, Meta: &img.Meta}))
						again, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
						require.NoError(t, err)
						assert.Equal(t, 1, EXIFOrientation(again.Meta.EXIF))
						assert.Equal(t, 1, again.Orientation)
						require.NotNil(t, again.Meta.EXIF)
						assert.LessOrEqual(t, maxDiff(t, upright, again.Pix), 2*tol+6)
					}
				})
			}
		}
	}
}

func TestOrientOutOfRangeIsIdentity(t *testing.T) {
	t.Parallel()
	m := quadrants()
	for _, o := range []int{-1, 0, 1, 9, 100} {
		assert.Same(t, m, Orient(m, o))
	}
}

func TestOrientSubImage(t *testing.T) {
	t.Parallel()
	big := naturalImage(50, 40, 2)
	sub := big.SubImage(image.Rect(5, 7, 25, 17)).(*image.NRGBA)
	got := Orient(sub, 6)
	require.Equal(t, image.Rect(0, 0, 10, 20), got.Rect)
	// Rotating clockwise puts the sub-image's bottom-left pixel top-left.
	assert.Equal(t, sub.NRGBAAt(5, 16), got.NRGBAAt(0, 0))
	assert.Equal(t, sub.NRGBAAt(5, 7), got.NRGBAAt(9, 0))
}

func TestEXIFOrientationParsing(t *testing.T) {
	t.Parallel()
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for o := uint16(1); o <= 8; o++ {
			assert.Equal(t, int(o), EXIFOrientation(exifWithOrientation(order, o)))
		}
		assert.Equal(t, 1, EXIFOrientation(exifWithOrientation(order, 0)))
		assert.Equal(t, 1, EXIFOrientation(exifWithOrientation(order, 9)))
	}
	for _, bad := range [][]byte{nil, []byte("II*"), []byte("XX*\x00\x08\x00\x00\x00"), []byte("II*\x00\xff\x00\x00\x00"),
		[]byte("II*\x00\x08\x00\x00\x00\x05\x00")} {
		assert.Equal(t, 1, EXIFOrientation(bad), "%q", bad)
	}
}
