package hostedmock_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
)

// cmykJPEG builds a valid w×h (multiples of 8) four-component baseline
// JPEG with an Adobe marker (CMYK): every coefficient is zero, coded with
// one-symbol Huffman tables.
func cmykJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	seg := func(marker byte, parts ...[]byte) []byte {
		var p []byte
		for _, x := range parts {
			p = append(p, x...)
		}
		return append([]byte{0xff, marker, byte((len(p) + 2) >> 8), byte(len(p) + 2)}, p...)
	}
	b := []byte{0xff, 0xd8}
	b = append(b, seg(0xee, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00"))...) // transform 0: CMYK
	b = append(b, seg(0xdb, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))...)
	b = append(b, seg(0xc0, []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 4, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0})...)
	counts := append([]byte{1}, make([]byte, 15)...)
	b = append(b, seg(0xc4, []byte{0x00}, counts, []byte{0})...) // DC: category 0 = "0"
	b = append(b, seg(0xc4, []byte{0x10}, counts, []byte{0})...) // AC: EOB = "0"
	b = append(b, seg(0xda, []byte{4, 1, 0, 2, 0, 3, 0, 4, 0, 0, 63, 0})...)
	blocks := (w / 8) * (h / 8) * 4
	b = append(b, make([]byte, (2*blocks+7)/8)...) // each block: "0" DC, "0" EOB
	b = append(b, 0xff, 0xd9)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, color.CMYKModel, cfg.ColorModel, "the test file must be a valid CMYK JPEG")
	return b
}

// TestCMYKIsRejected: the API takes RGB or RGBA images only; a CMYK JPEG
// is REJECTED with code 1001 (unsupported format), before the processor
// runs, with its originalDimensions.
func TestCMYKIsRejected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	j := f.run(t, cmykJPEG(t, 64, 48), "")
	require.Equal(t, hosted.StatusRejected, j.Status, j.StatusText)
	assert.Equal(t, 1001, j.Code)
	assert.Contains(t, j.StatusText, "CMYK")
	assert.Equal(t, &hosted.Dimensions{Width: 64, Height: 48}, j.OriginalDimensions)
	assert.Zero(t, f.proc.calls(), "the processor never sees it")

	e := engineFixture(t)
	j = e.run(t, cmykJPEG(t, 64, 48), "preset=none")
	assert.Equal(t, hosted.StatusRejected, j.Status, "also when no correction limit applies")
	assert.Equal(t, 1001, j.Code)
}

// TestGlareCounters: with removeGlares=true the detector runs and
// removeGlaresTotalCount counts the image whether or not glare is found;
// removeGlaresCount only when it is (the test processor finds glare in
// images of even width).
func TestGlareCounters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		name                   string
		width                  int
		query                  string
		detector, total, found int
	}{
		{"no glare found", 65, "removeGlares=true", 1, 1, 0},
		{"glare found", 64, "removeGlares=true", 1, 1, 1},
		{"not asked", 64, "", 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := f.run(t, jpegBytes(t, c.width, 48), c.query)
			require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
			assert.Equal(t, c.detector, j.Usage.GlaresDetectorCount)
			assert.Equal(t, c.total, j.Usage.RemoveGlaresTotalCount)
			assert.Equal(t, c.found, j.Usage.RemoveGlaresCount)
		})
	}
}

// TestCorrectionLimitsOnlyForCorrection: seed 000's limits (larger than
// 32x32, aspect below 21:1, ...) are those of correction, retouching,
// filters and auto-crop; a preset=none job that only resizes is not held
// to them, through the mock's checks and the engine alike, while AI
// upscaling's own limits still shape its output.
func TestCorrectionLimitsOnlyForCorrection(t *testing.T) {
	t.Parallel()
	f := engineFixture(t)
	small := jpegBytes(t, 20, 400) // short side 20: below the correction minimum
	thin := jpegBytes(t, 24, 600)  // 25:1: above the correction aspect limit
	cases := []struct {
		name   string
		img    []byte
		query  string
		status hosted.JobStatus
		w, h   int
	}{
		{"resize only", small, "preset=none&width=40", hosted.StatusCompleted, 40, 800},
		{"format only", thin, "preset=none&outputType=png", hosted.StatusCompleted, 24, 600},
		{"AI upscaling limit still applies", thin, "preset=none&resize=smallDetails&long=10000", hosted.StatusCompleted, 328, 8192},
		{"correction", small, "width=40", hosted.StatusRejected, 0, 0},
		{"another group", thin, "preset=Pro", hosted.StatusRejected, 0, 0},
		{"retouching", small, "preset=none&removeGlares=true", hosted.StatusRejected, 0, 0},
		{"auto-crop", small, "preset=none&autocrop=true", hosted.StatusRejected, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := f.run(t, c.img, c.query)
			require.Equal(t, c.status, j.Status, j.StatusText)
			if c.status == hosted.StatusRejected {
				assert.Equal(t, 1003, j.Code, "pixel size outside the limits")
				return
			}
			resp, body := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
			require.NoError(t, err)
			assert.Equal(t, [2]int{c.w, c.h}, [2]int{cfg.Width, cfg.Height})
		})
	}
}
