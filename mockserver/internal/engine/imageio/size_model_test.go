package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

// rawPNG writes a w×h PNG of colour type ctype at depth bits, interlaced
// (Adam7) or not, whose rows are row(y) (zero when row is nil), with the
// chunks extra before IDAT. The rows are what the sample bytes of one
// scanline of the whole image are: each pass of an interlaced image reads
// a prefix of them.
func rawPNG(t testing.TB, w, h int, depth, ctype byte, interlaced bool, extra []byte) []byte {
	t.Helper()
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
	rowBytes := func(width int) int { return (width*channels*int(depth) + 7) / 8 }
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	require.NoError(t, err)
	zero := make([]byte, 1+rowBytes(w))
	passes := [][4]int{{0, 0, 8, 8}} // x0, y0, dx, dy
	if interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	} else {
		passes[0] = [4]int{0, 0, 1, 1}
	}
	for _, p := range passes {
		pw, ph := (w-p[0]+p[2]-1)/p[2], (h-p[1]+p[3]-1)/p[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		for range ph {
			_, err := zw.Write(zero[:1+rowBytes(pw)])
			require.NoError(t, err)
		}
	}
	require.NoError(t, zw.Close())
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, ctype
	if interlaced {
		ihdr[12] = 1
	}
	out := append([]byte{}, pngMagic...)
	out = appendChunk(out, "IHDR", ihdr)
	if ctype == 3 {
		out = appendChunk(out, "PLTE", make([]byte, 3*(1<<min(depth, 8))))
	}
	out = append(out, extra...)
	out = appendChunk(out, "IDAT", z.Bytes())
	return appendChunk(out, "IEND", nil)
}

// TestHeaderDescribesDecoding: ReadHeader tells what decoding holds, from
// the chunks and segments: bit depth and colour type (a 1-bit grey PNG
// decodes to 1 byte a pixel, then 4 as NRGBA; a 16-bit one to 8), a tRNS
// (grey becomes NRGBA), interlacing, progressive coding, EXIF rotation.
func TestHeaderDescribesDecoding(t *testing.T) {
	t.Parallel()
	const w, h = 64, 48
	px := int64(w * h)
	exifPNG := func(o uint16) []byte {
		return appendChunk(nil, "eXIf", exifWithOrientation(binary.BigEndian, o))
	}
	for name, c := range map[string]struct {
		data                    []byte
		decoded                 int64
		alpha, inter, prog, rot bool
	}{
		"1-bit grey":          {rawPNG(t, w, h, 1, 0, false, nil), 5 * px, false, false, false, false},
		"grey + tRNS":         {rawPNG(t, w, h, 8, 0, false, appendChunk(nil, "tRNS", []byte{0, 0})), 4 * px, true, false, false, false},
		"16-bit grey":         {rawPNG(t, w, h, 16, 0, false, nil), 6 * px, false, false, false, false},
		"palette":             {rawPNG(t, w, h, 8, 3, false, nil), 5 * px, true, false, false, false},
		"RGB":                 {rawPNG(t, w, h, 8, 2, false, nil), 4 * px, false, false, false, false},
		"RGBA":                {rawPNG(t, w, h, 8, 6, false, nil), 4 * px, true, false, false, false},
		"16-bit RGBA":         {rawPNG(t, w, h, 16, 6, false, nil), 12 * px, true, false, false, false},
		"interlaced 1-bit":    {rawPNG(t, w, h, 1, 0, true, nil), 6 * px, false, true, false, false},
		"rotated RGB":         {rawPNG(t, w, h, 8, 2, false, exifPNG(6)), 8 * px, false, false, false, true},
		"upright RGB":         {rawPNG(t, w, h, 8, 2, false, exifPNG(1)), 4 * px, false, false, false, false},
		"baseline JPEG 4:2:0": {stdJPEG(t, naturalImage(w, h, 1), 90), px + px/2 + 4*px, false, false, false, false},
		"grey progressive":    {progressiveJPEG(w, h, 3), px + 4*px + 4*px, false, false, true, false},
		"rotated JPEG": {withSegments(stdJPEG(t, naturalImage(w, h, 1), 90), segment(markerAPP1, exifHeader, exifWithOrientation(binary.LittleEndian, 8))),
			8 * px, false, false, false, true},
	} {
		hdr, ok, err := ReadHeader(bytes.NewReader(c.data))
		require.True(t, ok, name)
		require.NoError(t, err, name)
		assert.Equal(t, [2]int{w, h}, [2]int{hdr.Width, hdr.Height}, name)
		assert.Equal(t, int64(len(c.data)), hdr.Size, name)
		assert.Equal(t, c.decoded, hdr.decoded, name)
		assert.Equal(t, [4]bool{c.alpha, c.inter, c.prog, c.rot}, [4]bool{hdr.Alpha, hdr.Interlaced, hdr.Progressive, hdr.Rotated}, name)
		_, err = Decode(bytes.NewReader(c.data), Limits{})
		require.NoError(t, err, name)
	}
}

// TestPeakBytesBoundsDecode: what Decode holds, measured, stays within
// the header's PeakBytes with no work beside it, for every colour model
// and bit depth (a 16-bit PNG held 12 bytes a pixel while counted as 2
// pixels of an ordinary one, a 1-bit PNG of 24 KB as many as a 30 MB
// one). Not parallel: it measures the heap.
func TestPeakBytesBoundsDecode(t *testing.T) {
	if raceEnabled {
		t.Skip("heap measured, not goroutines (the decoders' run in the other decode tests): checked without the race detector (go test, and .ci/run's heavy step)")
	}
	const w, h = 1500, 1000
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for name, data := range map[string][]byte{
		"1-bit grey":       rawPNG(t, w, h, 1, 0, false, nil),
		"16-bit grey":      rawPNG(t, w, h, 16, 0, false, nil),
		"16-bit RGBA":      rawPNG(t, w, h, 16, 6, false, nil),
		"interlaced RGB":   rawPNG(t, w, h, 8, 2, true, nil),
		"RGB":              rawPNG(t, w, h, 8, 2, false, nil),
		"palette":          rawPNG(t, w, h, 8, 3, false, nil),
		"grey progressive": progressiveJPEG(w, h, 3),
		"JPEG":             stdJPEG(t, naturalImage(w, h, 1), 90),
	} {
		hdr, ok, err := ReadHeader(bytes.NewReader(data))
		require.True(t, ok, name)
		require.NoError(t, err, name)
		var img *Image
		used := streamtest.PeakGrowth(func() { img, err = Decode(bytes.NewReader(data), Limits{}) })
		require.NoError(t, err, name)
		require.NotNil(t, img, name)
		model := hdr.PeakBytes(Work{})
		t.Logf("%-16s measured %5.2f B/px, model %5.2f B/px", name, float64(used)/float64(w*h), float64(model)/float64(w*h))
		assert.LessOrEqual(t, used, model, name)
	}
}

// TestMemoryCost: an ordinary JPEG corrected costs about BudgetPixelBytes
// a pixel; what decoding holds more of costs more, whatever the file's
// size; over the budget is a rejection naming the memory and what to
// raise.
func TestMemoryCost(t *testing.T) {
	t.Parallel()
	const w, h = 4000, 3000
	px := int64(w * h)
	cost := func(data []byte) Header {
		hdr, ok, err := ReadHeader(bytes.NewReader(data))
		require.True(t, ok)
		require.NoError(t, err)
		return hdr
	}
	// The cost is read from the header: a small JPEG of the same encoder
	// and quality, its frame header saying w×h, costs as the full image.
	jpg := cost(withFrameSize(t, stdJPEG(t, naturalImage(64, 48, 1), 90), w, h))
	perPixel := float64(jpg.MemoryCost(CorrectionWork)) / float64(px*BudgetPixelBytes)
	assert.True(t, perPixel > 0.9 && perPixel < 1.3, "%.2f × BudgetPixelBytes a pixel", perPixel)
	// So is a PNG's from its IHDR: small PNGs whose IHDR says w×h (a 16-bit
	// RGBA PNG of 4000×3000 took a fifth of a second to compress).
	oneBit := cost(withIHDRSize(t, rawPNG(t, 64, 48, 1, 0, false, nil), w, h))
	deep := cost(withIHDRSize(t, rawPNG(t, 64, 48, 16, 6, false, nil), w, h))
	require.Equal(t, [2]int{w, h}, [2]int{deep.Width, deep.Height})
	assert.Greater(t, deep.MemoryCost(CorrectionWork), 2*px*BudgetPixelBytes)
	assert.Greater(t, oneBit.MemoryCost(Work{PerPixel: 7}), oneBit.MemoryCost(CorrectionWork))
	assert.Zero(t, Header{}.MemoryCost(CorrectionWork))

	require.NoError(t, deep.CheckBudget(CorrectionWork, deep.MemoryCost(CorrectionWork), "X"))
	require.NoError(t, deep.CheckBudget(CorrectionWork, 0, "X"))
	err := deep.CheckBudget(CorrectionWork, deep.MemoryCost(CorrectionWork)-1, "Options.MemoryBudget")
	requireReject(t, err, ReasonMegapixels)
	assert.Contains(t, err.Error(), "16-bit PNG would hold about")
	assert.Contains(t, err.Error(), "; raise Options.MemoryBudget")
	err = deep.CheckBudget(CorrectionWork, 2*px, "")
	requireReject(t, err, ReasonMegapixels)
	assert.Contains(t, err.Error(), "more than the memory budget of 24 MB; raise the memory budget")
	assert.Equal(t, int64(9_223_372_036_855), ceilMB(math.MaxInt64), "no overflow")
	assert.Equal(t, int64(1), ceilMB(1))
	assert.Equal(t, int64(2), ceilMB(1_000_001))
}

// TestHeaderTakesTheFirstIHDR: Go's decoder decodes the pixels by the
// first IHDR and only then meets a second one (after IDAT) as out of
// order; the cost is the first one's too. A 16-bit RGBA PNG with a 1-bit
// grey IHDR after its IDAT was costed as 1-bit grey (5 bytes a pixel of
// the 12 it holds) and admitted under a budget that refuses it.
func TestHeaderTakesTheFirstIHDR(t *testing.T) {
	t.Parallel()
	const w, h = 64, 48
	honest := rawPNG(t, w, h, 16, 6, false, nil)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 1, 0
	iend := len(honest) - 12 // IEND: length, type, CRC
	evil := appendChunk(append([]byte{}, honest[:iend]...), "IHDR", ihdr)
	evil = append(evil, honest[iend:]...)
	want, _, err := ReadHeader(bytes.NewReader(honest))
	require.NoError(t, err)
	got, ok, err := ReadHeader(bytes.NewReader(evil))
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, want.decoded, got.decoded)
	assert.True(t, got.Wide)
	_, err = Decode(bytes.NewReader(evil), Limits{})
	require.Error(t, err, "the decoder meets the second IHDR after the pixels")
}

// withIHDRSize returns png with its IHDR saying w×h (and its CRC to
// match): what ReadHeader reads of a w×h PNG of the same colour type and
// depth, without compressing one.
func withIHDRSize(t testing.TB, png []byte, w, h int) []byte {
	t.Helper()
	out := append([]byte{}, png...)
	require.Equal(t, "IHDR", string(out[12:16]), "IHDR first")
	binary.BigEndian.PutUint32(out[16:], uint32(w))
	binary.BigEndian.PutUint32(out[20:], uint32(h))
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// withFrameSize returns jpg with its SOF0 frame header saying w×h: what
// ReadHeader reads of a w×h JPEG of the same encoder, without encoding
// one.
func withFrameSize(t testing.TB, jpg []byte, w, h int) []byte {
	t.Helper()
	out := append([]byte{}, jpg...)
	i := bytes.Index(out, []byte{0xFF, 0xC0})
	require.Positive(t, i, "no SOF0")
	binary.BigEndian.PutUint16(out[i+5:], uint16(h))
	binary.BigEndian.PutUint16(out[i+7:], uint16(w))
	return out
}
