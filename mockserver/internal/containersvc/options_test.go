package containersvc

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// correctedBytes corrects key with the query q and returns the output file.
func (f *fixture) correctedBytes(t *testing.T, key, q string) []byte {
	t.Helper()
	v, err := url.ParseQuery(q)
	require.NoError(t, err)
	res, herr := f.svc.Correct(t.Context(), key, v)
	require.Nil(t, herr, "%v", herr)
	out, _, herr := f.svc.OpenOutput(outputName(t, res.CorrectedURL))
	require.Nil(t, herr)
	defer out.Close()
	b, err := io.ReadAll(out)
	require.NoError(t, err)
	return b
}

// dqt returns the quantisation tables of a JPEG's DQT segments by table id
// (8-bit tables only, in the file's zigzag order).
func dqt(t *testing.T, data []byte) map[int][64]byte {
	t.Helper()
	tables := map[int][64]byte{}
	require.True(t, bytes.HasPrefix(data, []byte{0xFF, 0xD8}), "not a JPEG")
	for i := 2; i+4 <= len(data); {
		require.Equal(t, byte(0xFF), data[i], "marker expected at %d", i)
		m := data[i+1]
		if m == 0xDA || m == 0xD9 { // SOS: the tables come before it
			break
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		seg := data[i+4 : i+2+n]
		if m == 0xDB {
			for len(seg) >= 65 {
				require.Zero(t, seg[0]>>4, "16-bit table")
				var tab [64]byte
				copy(tab[:], seg[1:65])
				tables[int(seg[0]&15)] = tab
				seg = seg[65:]
			}
		}
		i += 2 + n
	}
	return tables
}

// jpegQuality estimates the quality a JPEG was written at, exactly: the
// quality 1..100 at which the reference encoder (image/jpeg, the IJG
// scaling of the standard tables) writes the same luminance and
// chrominance tables; 0 when none does.
func jpegQuality(t *testing.T, data []byte) int {
	t.Helper()
	got := dqt(t, data)
	tiny := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for q := 1; q <= 100; q++ {
		var b bytes.Buffer
		require.NoError(t, jpeg.Encode(&b, tiny, &jpeg.Options{Quality: q}))
		ref := dqt(t, b.Bytes())
		if ref[0] == got[0] && ref[1] == got[1] {
			return q
		}
	}
	return 0
}

// TestOutputQualityIsTheJPEGQuality: outputQuality is the quality of the
// JPEG written (read back exactly from its quantisation tables), 90 when
// omitted, and a higher quality gives a larger file.
func TestOutputQualityIsTheJPEGQuality(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "a.png", pngBytes(t, 96, 64))
	sizes := map[int]int{}
	for _, q := range []int{40, 63, 100} {
		out := f.correctedBytes(t, "a.png", "outputType=JPEG&outputQuality="+itoa(int64(q)))
		assert.Equal(t, q, jpegQuality(t, out), "outputQuality=%d", q)
		sizes[q] = len(out)
	}
	assert.Less(t, sizes[40], sizes[63])
	assert.Less(t, sizes[63], sizes[100])
	assert.Equal(t, DefaultOutputQuality, jpegQuality(t, f.correctedBytes(t, "a.png", "outputType=jpg")))
}

// TestImageTTLAndSweepIntervalDefaults: without PFC_IMG_CACHE_TTL files
// live 60 minutes, and the sweep runs every 10 minutes on the clock: an
// upload (aged from t0) goes at the sweep of minute 60, a file placed in
// input/ at t0 (aged from the first sweep that sees it, minute 10) at the
// sweep of minute 70 and not before.
func TestImageTTLAndSweepIntervalDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	m := f.svc.Mounts()
	up, herr := f.svc.Upload(t.Context(), "image/png", bytes.NewReader(pngBytes(t, 40, 40)))
	require.Nil(t, herr)
	f.placeInput(t, "direct.png", pngBytes(t, 40, 40))
	uploaded, direct := m.Input+"/"+up.ImageKey, m.Input+"/direct.png"

	f.clock.Advance(59 * time.Minute)
	assert.FileExists(t, uploaded, "59 minutes: within the 60-minute default")
	f.clock.Advance(time.Minute)
	assert.NoFileExists(t, uploaded, "the sweep of minute 60 deletes the upload")
	f.clock.Advance(9 * time.Minute)
	assert.FileExists(t, direct, "first seen by the sweep of minute 10, 59 minutes old at minute 69")
	f.clock.Advance(time.Minute)
	assert.NoFileExists(t, direct, "the sweep of minute 70")
}

// clipart is a few flat, colour-cast blocks: what the clipart detector
// reads as a computer graphic, and what a correction changes.
func clipart(t *testing.T) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	cols := []color.NRGBA{{40, 60, 150, 255}, {90, 110, 200, 255}, {20, 30, 90, 255}, {120, 140, 210, 255}}
	for y := range 64 {
		for x := range 64 {
			img.SetNRGBA(x, y, cols[(x/32)+2*(y/32)])
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// samePixels reports whether two PNG outputs hold the same pixels.
func samePixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	require.NoError(t, err)
	ib, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	if ia.Bounds() != ib.Bounds() {
		return false
	}
	for y := ia.Bounds().Min.Y; y < ia.Bounds().Max.Y; y++ {
		for x := ia.Bounds().Min.X; x < ia.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := ia.At(x, y).RGBA()
			r2, g2, b2, a2 := ib.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

// TestSkipModes: a clipart-like image is returned uncorrected under
// skip=clipart (the default, and PFC_SKIP_MODE's), corrected under
// skip=none; skip is ignored with AI preset selection (no preset, or
// Universal), which corrects it whatever skip says.
func TestSkipModes(t *testing.T) {
	t.Parallel()
	in := clipart(t)
	f := newFixture(t, nil)
	f.placeInput(t, "art.png", in)
	corrected := func(f *fixture, q string) bool {
		return !samePixels(t, in, f.correctedBytes(t, "art.png", q))
	}
	assert.False(t, corrected(f, "preset=Pro"), "skip defaults to clipart")
	assert.False(t, corrected(f, "preset=Pro&skip=clipart"))
	assert.True(t, corrected(f, "preset=Pro&skip=none"))
	assert.True(t, corrected(f, "skip=clipart"), "AI preset selection ignores skip")
	assert.True(t, corrected(f, "preset=Universal&skip=clipart"), "AI preset selection ignores skip")
	require.NotNil(t, f.logs.find(t, MsgSkipped))

	none := newFixture(t, func(c *Config) { c.SkipMode = "none" })
	none.placeInput(t, "art.png", in)
	assert.True(t, corrected(none, "preset=Pro"), "PFC_SKIP_MODE=none")
	assert.False(t, corrected(none, "preset=Pro&skip=clipart"), "the query overrides PFC_SKIP_MODE")
}

// TestSkipEXIFSoftwareFromTheQuery: skip-exif-software in the query, with
// no PFC_SKIP_EXIF_SOFTWARE default, leaves an image whose EXIF Software
// names it uncorrected (the same file as preset=none); another name does
// not.
func TestSkipEXIFSoftwareFromTheQuery(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "edited.jpg", jpegWithSoftware(t, "Adobe Photoshop 25.0"))
	uncorrected := f.correctedBytes(t, "edited.jpg", "preset=none")
	corrected := f.correctedBytes(t, "edited.jpg", "skip-exif-software=GIMP")
	require.NotEqual(t, uncorrected, corrected, "the test image must be one the correction changes")
	assert.Nil(t, f.logs.find(t, MsgSkipped))

	assert.Equal(t, uncorrected, f.correctedBytes(t, "edited.jpg", "skip-exif-software=GIMP,photoshop"))
	line := f.logs.find(t, MsgSkipped)
	require.NotNil(t, line)
	assert.Contains(t, line["reason"], "photoshop")
}

// TestAutocropReachesTheEngine: autocrop=true crops a single-face portrait
// around the head; false (the default) keeps the whole image.
func TestAutocropReachesTheEngine(t *testing.T) {
	t.Parallel()
	face, err := os.ReadFile("../engine/faces/testdata/astronaut.jpg")
	require.NoError(t, err)
	f := newFixture(t, nil)
	f.placeInput(t, "portrait.jpg", face)
	size := func(q string) [2]int {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(f.correctedBytes(t, "portrait.jpg", q)))
		require.NoError(t, err)
		return [2]int{cfg.Width, cfg.Height}
	}
	assert.Equal(t, [2]int{512, 512}, size("preset=none"))
	assert.Equal(t, [2]int{512, 512}, size("preset=none&autocrop=false"))
	cropped := size("preset=none&autocrop=true")
	assert.NotEqual(t, [2]int{512, 512}, cropped, "autocrop=true crops")
	assert.Positive(t, cropped[0]*cropped[1])
}

// TestRequestParamsReachTheEngine: every plain parameter of Request (a
// field tagged `param`, not ",mock") has the engine's field of its name,
// and every tagged field is a parameter of the container's table.
func TestRequestParamsReachTheEngine(t *testing.T) {
	t.Parallel()
	var er engine.Request
	require.NoError(t, pfcdoc.CopyParams(&er, &Request{Quality: 55}))
	assert.Equal(t, 55, er.Quality)
	kinds := map[pfcdoc.Kind]string{pfcdoc.KindBoolean: "bool", pfcdoc.KindInteger: "int", pfcdoc.KindString: "string"}
	for _, f := range pfcdoc.Fields(&Request{}) {
		p, ok := pfcdoc.Lookup(pfcdoc.Container, f.Name)
		if assert.True(t, ok, "%s is tagged %q, not a parameter of the container's table", f.GoName, f.Name) {
			assert.Equal(t, kinds[p.Kind], f.Value.Kind().String(), "%s (%s): a kind the parser sets", f.GoName, f.Name)
		}
	}
}
