package resize

import (
	"image"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// weightBits is the fixed-point precision of filter weights (Q14).
const weightBits = 14

const weightOne = 1 << weightBits

// taps holds the precomputed fixed-point filter weights of one axis: output
// i reads source samples start[i] .. start[i]+n-1 with weights
// w[i*n : i*n+n] (zero padded, so every window has the same length n).
type taps struct {
	start []int
	w     []int32
	n     int
}

// makeTaps computes the weights for resampling srcLen samples to dstLen.
// Pixel centres are aligned (output i samples source position
// (i+0.5)*srcLen/dstLen - 0.5); downscales stretch the kernel by the scale
// factor so it low-passes; samples past an edge repeat the edge sample.
// The weights of each output sum to exactly weightOne, so a constant input
// stays constant.
func makeTaps(srcLen, dstLen int, k Kernel) taps {
	ratio := float64(srcLen) / float64(dstLen)
	scale := math.Max(ratio, 1)
	support := k.support() * scale
	windows := make([][]float64, dstLen)
	starts := make([]int, dstLen)
	maxN := 1
	for i := 0; i < dstLen; i++ {
		center := float64(float64(i)+0.5) * ratio
		lo := int(math.Floor(center - support))
		hi := int(math.Ceil(center + support))
		first, last := clampInt(lo, 0, srcLen-1), clampInt(hi, 0, srcLen-1)
		win := make([]float64, last-first+1)
		sum := 0.0
		for j := lo; j <= hi; j++ {
			v := k.eval((float64(j) + 0.5 - center) / scale)
			if v == 0 {
				continue
			}
			win[clampInt(j, 0, srcLen-1)-first] += v
			sum += v
		}
		if sum == 0 {
			// Unreachable for the kernels here (the window always covers
			// the centre), but a nearest-sample fallback beats dividing by zero.
			win = []float64{1}
			first = clampInt(int(center), 0, srcLen-1)
			sum = 1
		}
		// Trim zero weights at both ends so the windows stay short.
		for len(win) > 1 && win[0] == 0 {
			win = win[1:]
			first++
		}
		for len(win) > 1 && win[len(win)-1] == 0 {
			win = win[:len(win)-1]
		}
		for j := range win {
			win[j] /= sum
		}
		windows[i] = win
		starts[i] = first
		maxN = max(maxN, len(win))
	}
	t := taps{start: starts, w: make([]int32, dstLen*maxN), n: maxN}
	for i, win := range windows {
		// Shift the window left where it would run past the end, so every
		// output reads exactly n in-range samples.
		off := 0
		if t.start[i]+maxN > srcLen {
			off = t.start[i] + maxN - srcLen
			t.start[i] -= off
		}
		row := t.w[i*maxN : (i+1)*maxN]
		var total int32
		big := off
		for j, v := range win {
			q := int32(math.Round(v * weightOne))
			row[off+j] = q
			total += q
			if q > row[big] {
				big = off + j
			}
		}
		// Give the rounding remainder to the largest weight.
		row[big] += weightOne - total
	}
	return t
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Resize resamples src to w x h pixels with kernel k (zero: Lanczos3).
//
// Filtering is separable (horizontal pass, then vertical) in fixed point on
// alpha-premultiplied values, so transparent pixels never bleed their colour
// into visible ones; the intermediate keeps 16 bits per channel. Work is split
// over runtime.GOMAXPROCS(0) goroutines by rows; every output value depends
// only on its inputs, so the result is identical for any number of cores.
// Sizes below 1 are treated as 1. The result always has its origin at (0,0)
// and never shares memory with src.
func Resize(src *image.NRGBA, w, h int, k Kernel) *image.NRGBA {
	w, h = max(w, 1), max(h, 1)
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	if sw <= 0 || sh <= 0 {
		return dst
	}
	k = k.normalize()
	if sw == w && sh == h {
		for y := 0; y < h; y++ {
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*w], src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+y):])
		}
		return dst
	}
	hx := makeTaps(sw, w, k)
	vy := makeTaps(sh, h, k)
	opaque := isOpaque(src)

	// Output rows are produced in bands; each band runs the horizontal pass
	// over just the source rows it reads, into a buffer of its own, then the
	// vertical pass. Bands bound the intermediate memory (a 20,000 px upscale
	// would otherwise need gigabytes) and keep it warm in cache; rows shared
	// by neighbouring bands are computed twice, a few percent of the work.
	// The band size may depend on the core count: every intermediate row is
	// the same whichever band computes it, so the output does not.
	workers := runtime.GOMAXPROCS(0)
	band := max(1, (bandSourceRows*h+sh-1)/sh)
	band = min(band, max(1, (h+4*workers-1)/(4*workers)))
	bands := (h + band - 1) / band
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, bands) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mid []uint16
			acc := make([]int32, w*4)
			var pre []uint16
			if !opaque {
				pre = make([]uint16, sw*4)
			}
			for {
				b := int(next.Add(1)) - 1
				if b >= bands {
					return
				}
				y0, y1 := b*band, min((b+1)*band, h)
				rowLo, rowHi := sh, 0
				for _, s := range vy.start[y0:y1] {
					rowLo, rowHi = min(rowLo, s), max(rowHi, s+vy.n)
				}
				if need := (rowHi - rowLo) * w * 4; cap(mid) < need {
					mid = make([]uint16, need)
				} else {
					mid = mid[:need]
				}
				for r := rowLo; r < rowHi; r++ {
					srow := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+r):]
					mrow := mid[(r-rowLo)*w*4 : (r-rowLo+1)*w*4]
					if opaque {
						horizontalOpaque(srow, mrow, &hx)
					} else {
						horizontalAlpha(srow, mrow, &hx, pre)
					}
				}
				for y := y0; y < y1; y++ {
					clear(acc)
					verticalTaps(acc, mid, w*4, vy.start[y]-rowLo, vy.w[y*vy.n:(y+1)*vy.n])
					drow := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
					if opaque {
						storeOpaque(acc, drow)
					} else {
						storeAlpha(acc, drow)
					}
				}
			}
		}()
	}
	wg.Wait()
	return dst
}

// bandSourceRows is about how many source rows one band of output rows
// covers.
const bandSourceRows = 512

// verticalTaps adds the weighted intermediate rows base, base+1, ... into
// acc, two rows per sweep to halve the accumulator traffic.
func verticalTaps(acc []int32, mid []uint16, rowLen, base int, wts []int32) {
	for t := 0; t < len(wts); {
		if t+1 < len(wts) && wts[t] != 0 && wts[t+1] != 0 {
			w0, w1 := wts[t], wts[t+1]
			r0 := mid[(base+t)*rowLen : (base+t+1)*rowLen]
			r1 := mid[(base+t+1)*rowLen : (base+t+2)*rowLen]
			r0, r1 = r0[:len(acc)], r1[:len(acc)]
			for i := range acc {
				acc[i] += w0*int32(r0[i]) + w1*int32(r1[i])
			}
			t += 2
			continue
		}
		if w0 := wts[t]; w0 != 0 {
			r0 := mid[(base+t)*rowLen : (base+t+1)*rowLen]
			r0 = r0[:len(acc)]
			for i := range acc {
				acc[i] += w0 * int32(r0[i])
			}
		}
		t++
	}
}

// The intermediate buffer holds premultiplied values scaled to 0..65025
// (colour*alpha, alpha*255); fullScale is that range's top.
const fullScale = 255 * 255

// horizontalOpaque filters one row of an opaque image (alpha ignored, taken
// as 255) into mid.
func horizontalOpaque(srow []uint8, mrow []uint16, t *taps) {
	n := t.n
	for x, s := range t.start {
		p := srow[s*4 : (s+n)*4]
		wts := t.w[x*n : (x+1)*n]
		var r, g, b int32
		for len(p) >= 16 && len(wts) >= 4 {
			w0, w1, w2, w3 := wts[0], wts[1], wts[2], wts[3]
			r += w0*int32(p[0]) + w1*int32(p[4]) + w2*int32(p[8]) + w3*int32(p[12])
			g += w0*int32(p[1]) + w1*int32(p[5]) + w2*int32(p[9]) + w3*int32(p[13])
			b += w0*int32(p[2]) + w1*int32(p[6]) + w2*int32(p[10]) + w3*int32(p[14])
			p, wts = p[16:], wts[4:]
		}
		for len(p) >= 8 && len(wts) >= 2 {
			w0, w1 := wts[0], wts[1]
			r += w0*int32(p[0]) + w1*int32(p[4])
			g += w0*int32(p[1]) + w1*int32(p[5])
			b += w0*int32(p[2]) + w1*int32(p[6])
			p, wts = p[8:], wts[2:]
		}
		if len(p) >= 4 && len(wts) > 0 {
			wt := wts[0]
			r += wt * int32(p[0])
			g += wt * int32(p[1])
			b += wt * int32(p[2])
		}
		m := mrow[x*4 : x*4+4 : x*4+4]
		m[0] = toMid(r * 255)
		m[1] = toMid(g * 255)
		m[2] = toMid(b * 255)
		m[3] = fullScale
	}
}

// horizontalAlpha filters one row of an image with transparency into mid.
// The row is premultiplied once into pre (colour*alpha, alpha) so the tap
// loop is plain multiply-adds.
func horizontalAlpha(srow []uint8, mrow []uint16, t *taps, pre []uint16) {
	for i := 0; i+3 < len(pre); i += 4 {
		q := srow[i : i+4 : i+4]
		a := uint16(q[3])
		pre[i], pre[i+1], pre[i+2], pre[i+3] = uint16(q[0])*a, uint16(q[1])*a, uint16(q[2])*a, a
	}
	n := t.n
	for x, s := range t.start {
		p := pre[s*4 : (s+n)*4]
		wts := t.w[x*n : (x+1)*n]
		var r, g, b, a int32
		for len(p) >= 8 && len(wts) >= 2 {
			w0, w1 := wts[0], wts[1]
			r += w0*int32(p[0]) + w1*int32(p[4])
			g += w0*int32(p[1]) + w1*int32(p[5])
			b += w0*int32(p[2]) + w1*int32(p[6])
			a += w0*int32(p[3]) + w1*int32(p[7])
			p, wts = p[8:], wts[2:]
		}
		if len(p) >= 4 && len(wts) > 0 {
			wt := wts[0]
			r += wt * int32(p[0])
			g += wt * int32(p[1])
			b += wt * int32(p[2])
			a += wt * int32(p[3])
		}
		storeMidAlpha(mrow[x*4:x*4+4:x*4+4], r, g, b, a*255)
	}
}

// storeMidAlpha stores one premultiplied pixel. Where the alpha sum
// overshoots full scale (ringing of negative lobes), the colours are scaled
// down with it, so clamping keeps the colour/alpha ratio and edges keep
// their colour.
func storeMidAlpha(m []uint16, r, g, b, a int32) {
	a = (a + weightOne/2) >> weightBits
	if a > fullScale {
		r = int32(int64(r) * fullScale / int64(a))
		g = int32(int64(g) * fullScale / int64(a))
		b = int32(int64(b) * fullScale / int64(a))
		a = fullScale
	}
	if a < 0 {
		a = 0
	}
	m[0], m[1], m[2], m[3] = toMid(r), toMid(g), toMid(b), uint16(a)
}

// toMid rounds a Q14 sum to the intermediate scale, clamping the overshoot
// of negative lobes.
func toMid(v int32) uint16 {
	v = (v + weightOne/2) >> weightBits
	if v < 0 {
		return 0
	}
	if v > fullScale {
		return fullScale
	}
	return uint16(v)
}

const outDiv = 255 * weightOne

func storeOpaque(acc []int32, drow []uint8) {
	for i := 0; i+3 < len(acc); i += 4 {
		d := drow[i : i+4 : i+4]
		d[0] = toByte(acc[i])
		d[1] = toByte(acc[i+1])
		d[2] = toByte(acc[i+2])
		d[3] = 255
	}
}

func toByte(v int32) uint8 {
	if v <= 0 {
		return 0
	}
	v = (v + outDiv/2) / outDiv
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// storeAlpha un-premultiplies using the full-precision sums, so faint
// pixels keep their colour.
func storeAlpha(acc []int32, drow []uint8) {
	for i := 0; i+3 < len(acc); i += 4 {
		d := drow[i : i+4 : i+4]
		a := acc[i+3]
		if a <= 0 {
			d[0], d[1], d[2], d[3] = 0, 0, 0, 0
			continue
		}
		d[3] = toByte(a)
		if d[3] == 0 {
			d[0], d[1], d[2] = 0, 0, 0
			continue
		}
		d[0] = unpremul(acc[i], a)
		d[1] = unpremul(acc[i+1], a)
		d[2] = unpremul(acc[i+2], a)
	}
}

func unpremul(c, a int32) uint8 {
	if c <= 0 {
		return 0
	}
	v := (int64(c)*255 + int64(a)/2) / int64(a)
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// isOpaque reports whether every pixel of m has alpha 255.
func isOpaque(m *image.NRGBA) bool {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	for y := 0; y < h; y++ {
		row := m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y+y):]
		row = row[:w*4]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}
