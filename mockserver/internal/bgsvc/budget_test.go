package bgsvc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// giantPNG writes a w×h PNG of colour type ctype at depth bits whose rows
// are row(y)'s bytes after the filter byte, deflated by compress/zlib (a
// 14000×14000 1-bit image of stripes makes about 60 KB); a
// nil row gives a black image, deflated by hand as one literal and
// 258-byte copies of it (what a good compressor writes: a 196 MP RGB PNG
// of about 3.5 MB), in no time.
func giantPNG(t testing.TB, w, h int, depth, ctype byte, row func(y int, b []byte)) []byte {
	t.Helper()
	channels := map[byte]int{0: 1, 2: 3, 6: 4}[ctype]
	line := make([]byte, 1+(w*channels*int(depth)+7)/8)
	var idat []byte
	if row == nil {
		idat = zeroZlib(int64(len(line)) * int64(h))
	} else {
		var z bytes.Buffer
		zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
		require.NoError(t, err)
		for y := range h {
			row(y, line[1:])
			_, err := zw.Write(line)
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		idat = z.Bytes()
	}
	out := []byte("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, body []byte) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
		start := len(out)
		out = append(append(out, typ...), body...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk("IHDR", append(ihdr, depth, ctype, 0, 0, 0))
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return out
}

// zeroZlib is a zlib stream of n zero bytes: one fixed-Huffman block of a
// literal 0, copies of 258 bytes at distance 1, the rest as literals.
func zeroZlib(n int64) []byte {
	out := []byte{0x78, 0x01}
	var acc uint64
	var nb uint
	put := func(v uint64, bits uint) { // LSB first
		acc |= v << nb
		for nb += bits; nb >= 8; nb -= 8 {
			out = append(out, byte(acc))
			acc >>= 8
		}
	}
	code := func(c uint64, bits uint) { // Huffman codes go MSB first
		var r uint64
		for i := range bits {
			r = r<<1 | (c>>i)&1
		}
		put(r, bits)
	}
	put(1, 1)     // final block
	put(1, 2)     // fixed Huffman codes
	code(0x30, 8) // literal 0
	for range (n - 1) / 258 {
		code(0xc5, 8) // length 258 (symbol 285)
		code(0, 5)    // distance 1
	}
	for range (n - 1) % 258 {
		code(0x30, 8)
	}
	code(0, 7) // end of block
	if nb > 0 {
		out = append(out, byte(acc))
	}
	return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1) // Adler-32 of zeros
}

// stripes fills a 1-bit row with 64-pixel vertical stripes.
func stripes(_ int, b []byte) {
	for i := range b {
		b[i] = 0
		if (i/8)%2 == 0 {
			b[i] = 0xff
		}
	}
}

// TestOverTheMemoryBudgetIsInvalidFile: an image whose decoding and
// background removal would hold more than the whole pixel budget stands
// for is refused like one over the limits (404 invalid_file), however
// small its file: a 24 KB 1-bit 14000×14000 PNG counted as 196 MP under a
// 200 MP budget and held 2.4 GB for 46 s; a 196 MP RGB PNG peaked at 3.0
// GB. An ordinary image is still taken under the same budget.
func TestOverTheMemoryBudgetIsInvalidFile(t *testing.T) {
	t.Parallel()
	const side = 14000
	s, _ := newService(t, func(c *Config) { c.PixelBudget = 200_000_000 })
	for name, data := range map[string][]byte{
		"1-bit grey": giantPNG(t, side, side, 1, 0, stripes),
		"8-bit RGB":  giantPNG(t, side, side, 8, 2, nil),
	} {
		t.Logf("%s: %d bytes", name, len(data))
		_, e := s.Submit(SubmitRequest{File: upload(t, s, data)})
		requireErr(t, e, 404, CodeInvalidFile, ParamFile)
		assert.Contains(t, e.Message, "more than the memory budget", name)
	}
	assert.Zero(t, s.queue.Stats().Queued+s.queue.Stats().Processing)

	r := submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{})
	waitIdle(t, s)
	assert.Equal(t, StatusCompleted, check(t, s, r.ProcessID).Status)
}
