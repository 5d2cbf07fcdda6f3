package imageio

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"image"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// pngLevel is the deflate level of PNG output. Level 1 (flate's fast
// encoder) is several times faster than the default and costs a few percent
// in size on photographs; see BenchmarkEncodePNG.
const pngLevel = flate.BestSpeed

// pngPartSize is the amount of filtered image data compressed as one
// independent deflate part. It depends on nothing but the image, so the
// output bytes are the same for any number of cores.
const pngPartSize = 1 << 20

// pngDictSize is how much of the previous part's data primes each part's
// compressor, so matches across part boundaries are not lost.
const pngDictSize = 32 << 10

// encodePNG writes img as an 8-bit RGB (opaque) or RGBA PNG with the given
// metadata chunks before IDAT.
//
// Rows are filtered with the per-row minimum-sum-of-absolute-differences
// heuristic (as image/png and libpng do) and compressed in parts of about
// pngPartSize in parallel: each part is a run of deflate blocks ended by a
// sync flush (the last by the final block), primed with the tail of the
// previous part as a preset dictionary, so their concatenation is one valid
// deflate stream. The Adler-32 checksum is combined from the parts.
func encodePNG(w io.Writer, img *image.NRGBA, metaChunks []byte) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	opaque := isOpaque(img)
	bpp := 4
	colorType := byte(6)
	if opaque {
		bpp, colorType = 3, 2
	}
	rowLen := 1 + width*bpp

	rowsPerPart := max(1, pngPartSize/rowLen)
	parts := (height + rowsPerPart - 1) / rowsPerPart
	type part struct {
		z     []byte
		adler uint32
		n     int
	}
	out := make([]part, parts)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), parts) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := make([]byte, rowLen)
			f := newPNGFilter(img, bpp)
			var raw bytes.Buffer
			var z bytes.Buffer
			for {
				i := int(next.Add(1)) - 1
				if i >= parts {
					return
				}
				y0, y1 := i*rowsPerPart, min((i+1)*rowsPerPart, height)
				// The dictionary is the filtered data just before this part:
				// rebuild enough of the previous rows to cover it.
				dy := min(y0, (pngDictSize+rowLen-1)/rowLen)
				raw.Reset()
				for y := y0 - dy; y < y1; y++ {
					f.row(y, cur)
					raw.Write(cur)
				}
				all := raw.Bytes()
				dictStart := max(0, dy*rowLen-pngDictSize)
				dict, data := all[dictStart:dy*rowLen], all[dy*rowLen:]
				z.Reset()
				fw, _ := flate.NewWriterDict(&z, pngLevel, dict) // level is valid
				fw.Write(data)                                   // writes to a bytes.Buffer cannot fail
				if i == parts-1 {
					fw.Close()
				} else {
					fw.Flush()
				}
				out[i] = part{z: bytes.Clone(z.Bytes()), adler: adler32.Checksum(data), n: len(data)}
			}
		}()
	}
	wg.Wait()

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(pngMagic)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, colorType // depth 8; compression, filter, interlace 0
	bw.Write(appendChunk(nil, "IHDR", ihdr[:]))
	bw.Write(metaChunks)
	adler := uint32(1)
	for i, p := range out {
		adler = adler32Combine(adler, p.adler, p.n)
		var pre, post []byte
		if i == 0 {
			pre = zlibHeader(pngLevel)
		}
		if i == parts-1 {
			post = binary.BigEndian.AppendUint32(nil, adler)
		}
		writeChunk(bw, "IDAT", pre, p.z, post)
	}
	bw.Write(appendChunk(nil, "IEND"))
	return bw.Flush()
}

// writeChunk writes a PNG chunk whose data is the concatenation of parts.
// Errors stick in the bufio.Writer and surface at Flush.
func writeChunk(w *bufio.Writer, typ string, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(n))
	copy(hdr[4:], typ)
	w.Write(hdr[:])
	crc := crc32.ChecksumIEEE(hdr[4:])
	for _, p := range parts {
		w.Write(p)
		crc = crc32.Update(crc, crc32.IEEETable, p)
	}
	var c [4]byte
	binary.BigEndian.PutUint32(c[:], crc)
	w.Write(c[:])
}

// zlibHeader returns the two zlib header bytes (deflate, 32K window) with
// the FLEVEL hint for level.
func zlibHeader(level int) []byte {
	switch {
	case level == flate.BestSpeed:
		return []byte{0x78, 0x01}
	case level >= 2 && level <= 5:
		return []byte{0x78, 0x5e}
	case level >= 7:
		return []byte{0x78, 0xda}
	}
	return []byte{0x78, 0x9c}
}

// adler32Combine returns the Adler-32 of A||B from adler(A), adler(B) and
// len(B) (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}

// PNG filter types.
const (
	ftNone = iota
	ftSub
	ftUp
	ftAverage
	ftPaeth
)

// pngFilter filters consecutive rows of one image; it keeps the previous
// raw row and scratch buffers between calls.
type pngFilter struct {
	img                   *image.NRGBA
	bpp                   int
	prevY                 int
	prev, cur, cand, best []byte
}

func newPNGFilter(img *image.NRGBA, bpp int) *pngFilter {
	n := img.Rect.Dx() * bpp
	return &pngFilter{img: img, bpp: bpp, prevY: -2,
		prev: make([]byte, n), cur: make([]byte, n), cand: make([]byte, n), best: make([]byte, n)}
}

// row writes row y, filtered, into out (filter byte first). The filter is
// the one with the smallest sum of absolute values of the filtered bytes
// (taken as signed), the heuristic image/png and libpng use.
func (f *pngFilter) row(y int, out []byte) {
	var prev []byte
	if y > 0 {
		if f.prevY == y-1 {
			f.prev, f.cur = f.cur, f.prev
		} else {
			pngRawRow(f.img, y-1, f.bpp, f.prev)
		}
		prev = f.prev
	}
	cur := pngRawRow(f.img, y, f.bpp, f.cur)
	f.prevY = y
	bestFt, bestSum := ftNone, sumAbs(cur)
	copy(f.best, cur)
	for ft := ftSub; ft <= ftPaeth; ft++ {
		if prev == nil && ft == ftUp {
			continue // identical to None on the first row
		}
		if s := applyFilter(ft, cur, prev, f.bpp, f.cand, bestSum); s < bestSum {
			bestFt, bestSum = ft, s
			f.best, f.cand = f.cand, f.best
		}
	}
	out[0] = byte(bestFt)
	copy(out[1:], f.best)
}

// pngRawRow returns row y as PNG samples (RGB or RGBA), using buf.
func pngRawRow(img *image.NRGBA, y, bpp int, buf []byte) []byte {
	width := img.Rect.Dx()
	src := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):][:4*width]
	if bpp == 4 {
		copy(buf, src)
		return buf[:4*width]
	}
	for x := 0; x < width; x++ {
		buf[3*x], buf[3*x+1], buf[3*x+2] = src[4*x], src[4*x+1], src[4*x+2]
	}
	return buf[:3*width]
}

func sumAbs(b []byte) int {
	s := 0
	for _, v := range b {
		s += int(absTable[v])
	}
	return s
}

// absTable[v] is |int8(v)|.
var absTable = func() (t [256]uint8) {
	for i := range t {
		if i < 128 {
			t[i] = uint8(i)
		} else {
			t[i] = uint8(256 - i)
		}
	}
	return t
}()

// applyFilter filters cur into dst with filter type ft and returns the sum
// of absolute values; it stops early (returning a value >= limit) once
// the sum reaches limit. prev is the raw previous row (nil for the first
// row, read as zeros).
func applyFilter(ft int, cur, prev []byte, bpp int, dst []byte, limit int) int {
	n := len(cur)
	dst = dst[:n]
	sum := 0
	switch ft {
	case ftSub:
		for i := 0; i < bpp; i++ {
			dst[i] = cur[i]
			sum += int(absTable[dst[i]])
		}
		for i := bpp; i < n; i++ {
			d := cur[i] - cur[i-bpp]
			dst[i] = d
			sum += int(absTable[d])
			if i&255 == 0 && sum >= limit {
				return sum
			}
		}
	case ftUp:
		prev = prev[:n]
		for i := 0; i < n; i++ {
			d := cur[i] - prev[i]
			dst[i] = d
			sum += int(absTable[d])
			if i&255 == 0 && sum >= limit {
				return sum
			}
		}
	case ftAverage:
		if prev == nil {
			for i := 0; i < bpp; i++ {
				dst[i] = cur[i]
				sum += int(absTable[dst[i]])
			}
			for i := bpp; i < n; i++ {
				d := cur[i] - cur[i-bpp]/2
				dst[i] = d
				sum += int(absTable[d])
			}
			return sum
		}
		prev = prev[:n]
		for i := 0; i < bpp; i++ {
			d := cur[i] - prev[i]/2
			dst[i] = d
			sum += int(absTable[d])
		}
		for i := bpp; i < n; i++ {
			d := cur[i] - uint8((int(cur[i-bpp])+int(prev[i]))>>1)
			dst[i] = d
			sum += int(absTable[d])
			if i&255 == 0 && sum >= limit {
				return sum
			}
		}
	case ftPaeth:
		if prev == nil { // Paeth degenerates to Sub on the first row
			return applyFilter(ftSub, cur, prev, bpp, dst, limit)
		}
		prev = prev[:n]
		for i := 0; i < bpp; i++ {
			d := cur[i] - prev[i]
			dst[i] = d
			sum += int(absTable[d])
		}
		for i := bpp; i < n; i++ {
			a, b, c := int(cur[i-bpp]), int(prev[i]), int(prev[i-bpp])
			d := cur[i] - uint8(paeth(a, b, c))
			dst[i] = d
			sum += int(absTable[d])
			if i&255 == 0 && sum >= limit {
				return sum
			}
		}
	}
	return sum
}

// paeth is the PNG Paeth predictor, in libpng's form (pa = |b-c|, pb =
// |a-c|, pc = |a+b-2c|), which equals the specification's.
func paeth(a, b, c int) int {
	pa, pb, pc := abs(b-c), abs(a-c), abs(a+b-2*c)
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
