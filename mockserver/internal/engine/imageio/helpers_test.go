package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// naturalImage makes an opaque w x h image of smooth gradients, a few soft
// shapes and mild noise: compressible like a photograph, not like a flat
// test card.
func naturalImage(w, h int, seed int64) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				i := y*m.Stride + x*4
				n := noise(x, y, seed)
				dx, dy := x-w/3, y-h/2
				disc := 0
				if dx*dx+dy*dy < (h/4)*(h/4) {
					disc = 50
				}
				m.Pix[i] = clamp8(40 + x*150/w + disc + n)
				m.Pix[i+1] = clamp8(60 + y*120/h + n)
				m.Pix[i+2] = clamp8(200 - (x+y)*120/(w+h) - disc + n)
				m.Pix[i+3] = 255
			}
		}
	})
	return m
}

// noise is a deterministic, non-repeating value in [-6, 6] per pixel, like
// sensor noise (a repeating pattern would flatter the PNG compressor).
func noise(x, y int, seed int64) int {
	h := uint64(x)*0x9e3779b97f4a7c15 ^ uint64(y)*0xc2b2ae3d27d4eb4f ^ uint64(seed)*0x165667b19e3779f9
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return int(h%13) - 6
}

func clamp8(v int) uint8 { return uint8(min(max(v, 0), 255)) }

// stdJPEG encodes with image/jpeg alone (no restart markers, no metadata).
// An opaque *image.NRGBA goes in as the *image.RGBA with the same bytes
// (what it is when every alpha is 255): image/jpeg reads that directly,
// the same bytes out as through its per-pixel At path, at a fraction of
// the CPU time.
func stdJPEG(t testing.TB, m image.Image, q int) []byte {
	if n, ok := m.(*image.NRGBA); ok && isOpaqueNRGBA(n) {
		m = &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
	}
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}))
	return buf.Bytes()
}

// isOpaqueNRGBA reports whether every pixel of m has alpha 255.
func isOpaqueNRGBA(m *image.NRGBA) bool {
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		row := m.Pix[m.PixOffset(m.Rect.Min.X, y):m.PixOffset(m.Rect.Max.X, y)]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}

// withSegments inserts raw segments right after SOI.
func withSegments(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

func segment(marker byte, body ...[]byte) []byte {
	b, err := appendSegment(nil, marker, body...)
	if err != nil {
		panic(err)
	}
	return b
}

// tiffBuilder writes a small EXIF TIFF payload: IFD0 with the given SHORT
// entries plus optionally an Exif sub-IFD with pixel dimensions and an
// IFD1 with a JPEG thumbnail.
type tiffBuilder struct {
	order     binary.AppendByteOrder
	ifd0      map[uint16]uint16
	pixelDims [2]uint32 // 0 = no Exif sub-IFD
	dimsShort bool
	thumbnail []byte // nil = no IFD1
}

func (b tiffBuilder) build() []byte {
	o := b.order
	var out []byte
	if o == binary.LittleEndian {
		out = []byte("II*\x00")
	} else {
		out = []byte("MM\x00*")
	}
	out = o.AppendUint32(out, 8)
	tags := make([]uint16, 0, len(b.ifd0)+1)
	for tag := range b.ifd0 {
		tags = append(tags, tag)
	}
	if b.pixelDims[0] != 0 {
		tags = append(tags, tagExifIFD)
	}
	sortU16(tags)
	ifd0Len := 2 + 12*len(tags) + 4
	subOff := 8 + ifd0Len
	subLen := 0
	if b.pixelDims[0] != 0 {
		subLen = 2 + 2*12 + 4
	}
	ifd1Off := subOff + subLen
	out = o.AppendUint16(out, uint16(len(tags)))
	for _, tag := range tags {
		out = o.AppendUint16(out, tag)
		if tag == tagExifIFD {
			out = o.AppendUint16(out, tiffTypeLong)
			out = o.AppendUint32(out, 1)
			out = o.AppendUint32(out, uint32(subOff))
			continue
		}
		out = o.AppendUint16(out, tiffTypeShort)
		out = o.AppendUint32(out, 1)
		out = o.AppendUint16(out, b.ifd0[tag])
		out = o.AppendUint16(out, 0)
	}
	if b.thumbnail != nil {
		out = o.AppendUint32(out, uint32(ifd1Off))
	} else {
		out = o.AppendUint32(out, 0)
	}
	if b.pixelDims[0] != 0 {
		out = o.AppendUint16(out, 2)
		for i, tag := range []uint16{tagPixelXDimension, tagPixelYDimension} {
			out = o.AppendUint16(out, tag)
			if b.dimsShort {
				out = o.AppendUint16(out, tiffTypeShort)
				out = o.AppendUint32(out, 1)
				out = o.AppendUint16(out, uint16(b.pixelDims[i]))
				out = o.AppendUint16(out, 0)
			} else {
				out = o.AppendUint16(out, tiffTypeLong)
				out = o.AppendUint32(out, 1)
				out = o.AppendUint32(out, b.pixelDims[i])
			}
		}
		out = o.AppendUint32(out, 0)
	}
	if b.thumbnail != nil {
		ifd1Len := 2 + 3*12 + 4
		thumbOff := ifd1Off + ifd1Len
		out = o.AppendUint16(out, 3)
		out = o.AppendUint16(out, 0x0103) // Compression = 6 (JPEG)
		out = o.AppendUint16(out, tiffTypeShort)
		out = o.AppendUint32(out, 1)
		out = o.AppendUint16(out, 6)
		out = o.AppendUint16(out, 0)
		out = o.AppendUint16(out, tagJPEGOffset)
		out = o.AppendUint16(out, tiffTypeLong)
		out = o.AppendUint32(out, 1)
		out = o.AppendUint32(out, uint32(thumbOff))
		out = o.AppendUint16(out, tagJPEGLength)
		out = o.AppendUint16(out, tiffTypeLong)
		out = o.AppendUint32(out, 1)
		out = o.AppendUint32(out, uint32(len(b.thumbnail)))
		out = o.AppendUint32(out, 0)
		out = append(out, b.thumbnail...)
	}
	return out
}

func sortU16(v []uint16) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func exifWithOrientation(order binary.AppendByteOrder, o uint16) []byte {
	return tiffBuilder{order: order, ifd0: map[uint16]uint16{tagOrientation: o}}.build()
}

func newZlib(w *bytes.Buffer) *zlib.Writer { return zlib.NewWriter(w) }
