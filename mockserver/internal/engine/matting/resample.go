package matting

import (
	"image"
	"image/draw"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// toNRGBA returns src as an *image.NRGBA with origin (0,0), sharing pixels
// when it already is one.
func toNRGBA(src image.Image) *image.NRGBA {
	if n, ok := src.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	b := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, src, b.Min, draw.Src)
	return dst
}

// CoverSource returns the source the cover resize of an Image background
// reads: src itself when it is an *image.NRGBA with origin (0,0) (rows
// Stride bytes apart), otherwise a copy converted to NRGBA. Colours are not
// flattened here: the resize's horizontal pass flattens every pixel onto
// white as it reads it.
func CoverSource(src image.Image) *image.NRGBA { return toNRGBA(src) }

// catmullRom is the Keys cubic (a = -0.5), a sharp, ringing-limited kernel.
func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return 1.5*x*x*x - 2.5*x*x + 1
	case x < 2:
		return -0.5*x*x*x + 2.5*x*x - 4*x + 2
	}
	return 0
}

// ResizeTaps is one axis of a separable resampling filter: destination
// index i reads the N source indices from Start[i] on, each clamped to the
// source, with the normalised weights W[i*N : i*N+N]; the resize skips a
// zero weight.
type ResizeTaps struct {
	// Start is the first source index of each destination index.
	Start []int32
	// N is the number of taps per destination index.
	N int
	// W holds N weights per destination index.
	W []float32
}

// makeTaps maps dst index i to source coordinate (i+0.5+off)/scale-0.5 and
// builds Catmull-Rom weights, widened by 1/scale when minifying so the
// filter also antialiases.
func makeTaps(dstN int, scale, off float64) ResizeTaps {
	support := 2.0
	stretch := 1.0
	if scale < 1 {
		stretch = 1 / scale
	}
	n := int(math.Ceil(support*stretch))*2 + 1
	t := ResizeTaps{Start: make([]int32, dstN), N: n, W: make([]float32, dstN*n)}
	for i := 0; i < dstN; i++ {
		c := (float64(i)+0.5+off)/scale - 0.5
		s := int(math.Floor(c - support*stretch + 1))
		t.Start[i] = int32(s)
		sum := 0.0
		for k := 0; k < n; k++ {
			sum += catmullRom((float64(s+k) - c) / stretch)
		}
		for k := 0; k < n; k++ {
			if sum != 0 {
				t.W[i*n+k] = float32(catmullRom((float64(s+k)-c)/stretch) / sum)
			}
		}
	}
	return t
}

// CoverPlan is the cover resize of a source to a frame (see PlanCover):
// the filter of each axis and the source rows the vertical pass reads.
type CoverPlan struct {
	// X maps frame columns to source columns, Y frame rows to source rows.
	X, Y ResizeTaps
	// RowLo and RowHi bound the source rows [RowLo, RowHi) that the
	// horizontal pass filters: the vertical pass reads row r (clamped to
	// the source) from filtered row r-RowLo, clamped to [0, RowHi-RowLo).
	RowLo, RowHi int
}

// PlanCover plans how an Image background of srcW×srcH pixels is scaled
// to cover a w×h frame, keeping its aspect ratio, and cropped centred
// (Catmull-Rom, widened to antialias when minifying). All sizes must be
// positive. The resize is two separable passes: horizontally, each source
// row of [RowLo, RowHi) is filtered by X into three float32 values per
// frame column, each source pixel first flattened onto white
// (c·a + 255·(1-a) with a = alpha/255); vertically, Y combines those rows
// and the result is rounded and clamped to 8 bits, opaque.
func PlanCover(srcW, srcH, w, h int) CoverPlan {
	scale := math.Max(float64(w)/float64(srcW), float64(h)/float64(srcH))
	offX := (float64(srcW)*scale - float64(w)) / 2
	offY := (float64(srcH)*scale - float64(h)) / 2
	p := CoverPlan{X: makeTaps(w, scale, offX), Y: makeTaps(h, scale, offY)}
	p.RowLo = max(int(p.Y.Start[0]), 0)
	p.RowHi = min(int(p.Y.Start[h-1])+p.Y.N, srcH)
	return p
}

// coverResize scales src (flattened onto white where it is not opaque) to
// cover a w×h frame, keeping its aspect ratio, and crops it centred.
func coverResize(src image.Image, w, h int) *image.NRGBA {
	s := toNRGBA(src)
	sw, sh := s.Rect.Dx(), s.Rect.Dy()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	if sw == 0 || sh == 0 || w <= 0 || h <= 0 {
		return dst
	}
	p := PlanCover(sw, sh, w, h)
	tx, ty := p.X, p.Y
	// Rows of the source the vertical pass needs.
	rowLo, rowHi := p.RowLo, p.RowHi
	// Horizontal pass into float rows (opaque sRGB, flattened on white).
	tmp := make([]float32, 3*w*(rowHi-rowLo))
	parallel.Rows(rowHi-rowLo, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			sy := rowLo + r
			row := s.Pix[sy*s.Stride:]
			out := tmp[3*w*r : 3*w*(r+1)]
			for x := 0; x < w; x++ {
				var acc [3]float32
				st := int(tx.Start[x])
				for k := 0; k < tx.N; k++ {
					sx := min(max(st+k, 0), sw-1)
					wt := tx.W[x*tx.N+k]
					if wt == 0 {
						continue
					}
					p := row[4*sx : 4*sx+4]
					a := float32(p[3]) / 255
					for c := 0; c < 3; c++ {
						acc[c] += wt * (float32(p[c])*a + 255*(1-a))
					}
				}
				out[3*x], out[3*x+1], out[3*x+2] = acc[0], acc[1], acc[2]
			}
		}
	})
	parallel.Rows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			st := int(ty.Start[y])
			o := dst.Pix[y*dst.Stride:]
			for x := 0; x < w; x++ {
				var acc [3]float32
				for k := 0; k < ty.N; k++ {
					wt := ty.W[y*ty.N+k]
					if wt == 0 {
						continue
					}
					r := min(max(st+k, 0), sh-1) - rowLo
					r = min(max(r, 0), rowHi-rowLo-1)
					p := tmp[3*(w*r+x):]
					acc[0] += wt * p[0]
					acc[1] += wt * p[1]
					acc[2] += wt * p[2]
				}
				for c := 0; c < 3; c++ {
					o[4*x+c] = clamp8(acc[c])
				}
				o[4*x+3] = 255
			}
		}
	})
	return dst
}

func clamp8(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}
