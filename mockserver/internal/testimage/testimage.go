// Package testimage makes the images the mocks' tests feed them: a
// picture in colour models the API documentation does not list, and PNGs
// of huge dimensions that take little time and memory to make.
package testimage

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/jpeg"
	"image/png"
)

// ColourModels returns a w×h picture, whose grey level at (x, y) is
// level(x, y), encoded in the colour models outside 8-bit RGB(A) that the
// API documentation does not list but the mocks accept (grey to RGB, a
// palette to RGB(A), 16 bits to 8), keyed by a file name: grey.jpg,
// grey.png, grey16.png, rgba64.png and palette.png.
func ColourModels(w, h int, level func(x, y int) uint8) (map[string][]byte, error) {
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(gray.Rect)
	rgb64 := image.NewNRGBA64(gray.Rect)
	pal := image.NewPaletted(gray.Rect, palette.Plan9)
	for y := range h {
		for x := range w {
			v := level(x, y)
			gray.SetGray(x, y, color.Gray{Y: v})
			gray16.SetGray16(x, y, color.Gray16{Y: uint16(v) * 257})
			rgb64.SetNRGBA64(x, y, color.NRGBA64{R: uint16(v) * 257, G: 30000, B: uint16(x) * 1000, A: 0xffff})
			pal.SetColorIndex(x, y, v)
		}
	}
	out := map[string][]byte{}
	for name, img := range map[string]image.Image{"grey.png": gray, "grey16.png": gray16, "rgba64.png": rgb64, "palette.png": pal} {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return nil, err
		}
		out[name] = b.Bytes()
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, gray, nil); err != nil {
		return nil, err
	}
	out["grey.jpg"] = b.Bytes()
	return out, nil
}

// GiantPNG writes a w×h PNG of colour type ctype at depth bits whose rows
// are row(y)'s bytes after the filter byte, deflated by compress/zlib (a
// 14000×14000 1-bit image of Stripes makes about 60 KB); a nil row gives
// a black image, deflated by hand as one literal and 258-byte copies of it
// (what a good compressor writes: a 196 MP RGB PNG of about 3.5 MB), in
// no time.
func GiantPNG(w, h int, depth, ctype byte, row func(y int, b []byte)) ([]byte, error) {
	channels := map[byte]int{0: 1, 2: 3, 6: 4}[ctype]
	line := make([]byte, 1+(w*channels*int(depth)+7)/8)
	var idat []byte
	if row == nil {
		idat = zeroZlib(int64(len(line)) * int64(h))
	} else {
		var z bytes.Buffer
		zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
		if err != nil {
			return nil, err
		}
		for y := range h {
			row(y, line[1:])
			if _, err := zw.Write(line); err != nil {
				return nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
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
	return out, nil
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

// Stripes fills a 1-bit row with 64-pixel vertical stripes.
func Stripes(_ int, b []byte) {
	for i := range b {
		b[i] = 0
		if (i/8)%2 == 0 {
			b[i] = 0xff
		}
	}
}
