package imageio

import (
	"image"
	"image/color"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// toNRGBA converts a decoder's image to NRGBA with origin (0,0), with
// direct loops for the types image/jpeg and image/png return, split over
// the cores by rows. An *image.NRGBA at the origin is returned as is, an
// opaque *image.RGBA at the origin shares its pixels.
func toNRGBA(m image.Image) *image.NRGBA {
	b := m.Bounds()
	if n, ok := m.(*image.NRGBA); ok && b.Min == (image.Point{}) {
		return n
	}
	if r, ok := m.(*image.RGBA); ok && b.Min == (image.Point{}) && opaqueRGBAPix(r) {
		// NRGBA and RGBA agree at alpha 255: an RGB PNG or an RGB JPEG
		// (decoded as opaque RGBA) serves as is instead of being copied.
		return &image.NRGBA{Pix: r.Pix, Stride: r.Stride, Rect: r.Rect}
	}
	w, h := b.Dx(), b.Dy()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	var row func(y int, d []uint8)
	switch src := m.(type) {
	case *image.YCbCr:
		row = func(y int, d []uint8) { ycbcrRow(src, b.Min.X, b.Min.Y+y, d) }
	case *image.Gray:
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				v := s[x]
				d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = v, v, v, 255
			}
		}
	case *image.RGBA:
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			copy(d, s[:4*w])
			for i := 0; i < 4*w; i += 4 {
				if a := d[i+3]; a != 255 {
					d[i], d[i+1], d[i+2] = unpremul8(d[i], a), unpremul8(d[i+1], a), unpremul8(d[i+2], a)
				}
			}
		}
	case *image.Paletted:
		lut := make([]color.NRGBA, 256)
		for i, c := range src.Palette {
			if i < len(lut) {
				lut[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
			}
		}
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				c := lut[s[x]]
				d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = c.R, c.G, c.B, c.A
			}
		}
	case *image.Gray16:
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				v := s[2*x]
				d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = v, v, v, 255
			}
		}
	case *image.NRGBA:
		row = func(y int, d []uint8) { copy(d, src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]) }
	case *image.NRGBA64:
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			for i := 0; i < 4*w; i++ {
				d[i] = s[2*i] // the high byte, as color.NRGBAModel does
			}
		}
	case *image.RGBA64:
		row = func(y int, d []uint8) {
			s := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				p := s[8*x : 8*x+8 : 8*x+8]
				if p[6] == 0xff && p[7] == 0xff {
					d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = p[0], p[2], p[4], 255
					continue
				}
				c := color.NRGBAModel.Convert(color.RGBA64{
					R: uint16(p[0])<<8 | uint16(p[1]), G: uint16(p[2])<<8 | uint16(p[3]),
					B: uint16(p[4])<<8 | uint16(p[5]), A: uint16(p[6])<<8 | uint16(p[7]),
				}).(color.NRGBA)
				d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = c.R, c.G, c.B, c.A
			}
		}
	default:
		row = func(y int, d []uint8) {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = c.R, c.G, c.B, c.A
			}
		}
	}
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row(y, dst.Pix[y*dst.Stride:y*dst.Stride+4*w])
		}
	})
	return dst
}

// opaqueRGBAPix reports whether every pixel of m has alpha 255.
func opaqueRGBAPix(m *image.RGBA) bool {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	for y := 0; y < h; y++ {
		row := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}

func unpremul8(c, a uint8) uint8 {
	if a == 0 {
		return 0
	}
	return uint8(min(255, (uint32(c)*255+uint32(a)/2)/uint32(a)))
}

// ycbcrRow converts one row with the exact integer arithmetic of
// color.YCbCrToRGB; chroma is taken from the sample covering each pixel
// (no interpolation), as image.YCbCr.At does.
func ycbcrRow(src *image.YCbCr, x0, y int, d []uint8) {
	w := len(d) / 4
	yrow := src.Y[src.YOffset(x0, y):]
	ci := src.COffset(x0, y)
	var cshift uint
	switch src.SubsampleRatio {
	case image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440:
		cshift = 1
		if src.SubsampleRatio == image.YCbCrSubsampleRatio440 {
			cshift = 0
		}
	case image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410:
		cshift = 2
	}
	// COffset(x0,y) is the chroma sample of x0; later pixels step by
	// x>>cshift relative to x0's chroma column.
	cx0 := x0 >> cshift
	cb, cr := src.Cb[ci:], src.Cr[ci:]
	for x := 0; x < w; x++ {
		k := ((x0 + x) >> cshift) - cx0
		yy1 := int32(yrow[x]) * 0x10101
		cb1 := int32(cb[k]) - 128
		cr1 := int32(cr[k]) - 128
		r := yy1 + 91881*cr1
		if uint32(r)&0xff000000 == 0 {
			r >>= 16
		} else {
			r = ^(r >> 31)
		}
		g := yy1 - 22554*cb1 - 46802*cr1
		if uint32(g)&0xff000000 == 0 {
			g >>= 16
		} else {
			g = ^(g >> 31)
		}
		b := yy1 + 116130*cb1
		if uint32(b)&0xff000000 == 0 {
			b >>= 16
		} else {
			b = ^(b >> 31)
		}
		p := d[4*x : 4*x+4 : 4*x+4]
		p[0], p[1], p[2], p[3] = uint8(r), uint8(g), uint8(b), 255
	}
}
