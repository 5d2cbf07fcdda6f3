package imageio

import (
	"bytes"
	"compress/zlib"
	"image"
	"image/png"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bitWriter packs Huffman codes MSB first, stuffing 0x00 after 0xFF.
type bitWriter struct {
	out  []byte
	acc  uint32
	nacc int
}

func (w *bitWriter) put(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | (v>>uint(i))&1
		w.nacc++
		if w.nacc == 8 {
			w.out = append(w.out, byte(w.acc))
			if byte(w.acc) == 0xff {
				w.out = append(w.out, 0)
			}
			w.acc, w.nacc = 0, 0
		}
	}
}

func (w *bitWriter) flush() []byte {
	for w.nacc != 0 {
		w.put(1, 1) // pad with ones
	}
	return w.out
}

// progressiveJPEG returns a w×h grey progressive JPEG of one DC scan and
// acScans AC scans that each end every block at once (an end-of-band run
// over the whole image): a few dozen bytes a scan, each costing the
// decoder a pass over all the blocks.
func progressiveJPEG(w, h, acScans int) []byte {
	seg := func(m byte, body ...byte) []byte {
		n := len(body) + 2
		return append([]byte{0xff, m, byte(n >> 8), byte(n)}, body...)
	}
	out := []byte{0xff, markerSOI}
	out = append(out, seg(0xdb, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)...)...)
	out = append(out, seg(0xc2, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)...)
	counts := make([]byte, 16)
	// One code of one bit in each table: DC category 0, and the AC
	// end-of-band run of 2^14 and more.
	counts[0] = 1
	out = append(out, seg(0xc4, append(append([]byte{0x00}, counts...), 0x00)...)...)
	out = append(out, seg(0xc4, append(append([]byte{0x10}, counts...), 0xe0)...)...)
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	out = append(out, seg(markerSOS, 1, 1, 0x00, 0, 0, 0)...)
	var dc bitWriter
	for range blocks {
		dc.put(0, 1)
	}
	out = append(out, dc.flush()...)
	var ac bitWriter
	for range (blocks + 32766) / 32767 {
		ac.put(0, 1)
		ac.put(0x3fff, 14)
	}
	scan := append(seg(markerSOS, 1, 1, 0x00, 1, 63, 0), ac.flush()...)
	for range acScans {
		out = append(out, scan...)
	}
	return append(out, 0xff, markerEOI)
}

// TestDecodeBoundsJPEGScans: a JPEG of more than MaxJPEGScans scans is
// refused before the pixel decoder runs (a 68 KB file of 1,000 scans took
// 10 s to decode); one at the bound decodes.
func TestDecodeBoundsJPEGScans(t *testing.T) {
	t.Parallel()
	img, err := Decode(bytes.NewReader(progressiveJPEG(64, 48, MaxJPEGScans-1)), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 64, 48), img.Pix.Rect)

	_, err = Decode(bytes.NewReader(progressiveJPEG(64, 48, MaxJPEGScans)), HostedLimits)
	requireReject(t, err, ReasonFormat)
	assert.ErrorContains(t, err, "more than 100 scans")

	assert.Equal(t, 1, jpegScans(stdJPEG(t, naturalImage(40, 30, 1), 90), MaxJPEGScans))
	assert.Equal(t, 6, jpegScans(progressiveJPEG(64, 48, 1000), 5), "stops past the limit")

	// Go's decoder skips stray bytes and "FF 00" between segments; the
	// count must too, or one junk byte lets any number of scans through.
	for _, junk := range [][]byte{{0x00}, {0xff, 0x00}, {0x12, 0x34, 0xff, 0xff}} {
		data := insertBefore(progressiveJPEG(64, 48, MaxJPEGScans), []byte{0xff, markerSOS}, junk)
		_, err = Decode(bytes.NewReader(data), HostedLimits)
		requireReject(t, err, ReasonFormat)
	}
}

// insertBefore returns data with junk inserted before the first marker.
func insertBefore(data, marker, junk []byte) []byte {
	i := bytes.Index(data, marker)
	return append(append(append([]byte{}, data[:i]...), junk...), data[i:]...)
}

// bombZlib is a zlib stream inflating to just over maxMetaItem, compressed
// once per test binary (it takes a tenth of a second).
var bombZlib = sync.OnceValues(func() ([]byte, error) {
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(make([]byte, maxMetaItem+1)); err != nil {
		return nil, err
	}
	err = zw.Close()
	return z.Bytes(), err
})

// bombPNG returns a w×h PNG with n copies of chunk typ whose body is
// prefix and a zlib stream inflating to just over maxMetaItem.
func bombPNG(t *testing.T, w, h, n int, typ, prefix string) []byte {
	t.Helper()
	var enc bytes.Buffer
	require.NoError(t, png.Encode(&enc, image.NewGray(image.Rect(0, 0, w, h))))
	z, err := bombZlib()
	require.NoError(t, err)
	b := enc.Bytes()
	out := append([]byte{}, b[:33]...) // signature and IHDR
	for range n {
		out = appendChunk(out, typ, []byte(prefix), z)
	}
	return append(out, b[33:]...)
}

// allocated returns the bytes fn allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPNGMetadataInflationIsBounded: a profile or XMP packet that
// inflates past the item limit is tried once, not once per copy of its
// chunk (20 copies inflated 20 × 16 MiB), and an image the limits refuse
// is refused before any of it is inflated. Not parallel: it counts the
// bytes allocated.
func TestPNGMetadataInflationIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("bytes allocated, not goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	for _, tc := range []struct{ typ, prefix string }{
		{"iCCP", "ICC\x00\x00"},
		{"iTXt", xmpKeyword + "\x00\x01\x00\x00\x00"},
	} {
		data := bombPNG(t, 40, 40, 20, tc.typ, tc.prefix)
		var img *Image
		var err error
		n := allocated(func() { img, err = Decode(bytes.NewReader(data), HostedLimits) })
		require.NoError(t, err, tc.typ)
		assert.Nil(t, img.Meta.ICC, tc.typ)
		assert.Nil(t, img.Meta.XMP, tc.typ)
		assert.Less(t, n, uint64(128<<20), "%s: %d MiB allocated", tc.typ, n>>20)

		data = bombPNG(t, 1, 1, 20, tc.typ, tc.prefix)
		n = allocated(func() { _, err = Decode(bytes.NewReader(data), ContainerLimits) })
		requireReject(t, err, ReasonTooSmall)
		assert.Less(t, n, uint64(4<<20), "%s: %d MiB allocated for a refused image", tc.typ, n>>20)
	}
}
