package correct

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The image generators here (rng, newImage and naturalImage, castImage,
// addNoise, greyscale) are marked //go:norace: each builds a test's input
// on one goroutine before the code under test sees it, so the race
// detector has nothing to find in them, and instrumenting their every
// pixel access was half of this package's time under -race. The helpers
// that read what the code under test produced (meanRGB, meanAbsDiff,
// newlyClipped) stay instrumented.

// rng is splitmix64: a tiny deterministic generator for test images.
type rng uint64

//go:norace
func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a value in [0,1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// normBits sets the size of normTable: 1<<normBits quantiles.
const normBits = 16

// normTable holds the standard normal quantiles at the midpoints of
// 1<<normBits equally likely bins, made once per test binary.
var normTable = func() *[1 << normBits]float64 {
	var t [1 << normBits]float64
	for i := range t {
		t[i] = math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/(1<<normBits)-1)
	}
	return &t
}()

// norm returns a standard normal value: one of normTable's quantiles, all
// equally likely (tails cut at ±4.3). A table lookup per value: Box-Muller's
// logarithm, square root and cosine per value were half of this package's
// test time.
//
//go:norace
func (r *rng) norm() float64 { return normTable[r.next()>>(64-normBits)] }

func clampByte(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// newImage renders f and adds independent Gaussian noise sigma to each
// channel, as camera noise is.
//
//go:norace
func newImage(w, h int, seed uint64, sigma float64, f func(x, y int) (r, g, b float64)) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rn := rng(seed ^ 0x5eed)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b := f(x, y)
			if sigma > 0 {
				r += sigma * rn.norm()
				g += sigma * rn.norm()
				b += sigma * rn.norm()
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = clampByte(r), clampByte(g), clampByte(b), 255
		}
	}
	return img
}

func cloneImage(img *image.NRGBA) *image.NRGBA {
	c := *img
	c.Pix = append([]uint8(nil), img.Pix...)
	return &c
}

// scene fixture geometry: the grey and white patches of naturalImage.
func greyPatch(w, h int) image.Rectangle {
	return image.Rect(w*10/100, h*60/100, w*30/100, h*85/100)
}

func whitePatch(w, h int) image.Rectangle {
	return image.Rect(w*70/100, h*10/100, w*88/100, h*30/100)
}

// naturalImage is a photo-like test image: a smooth multi-colour field with
// fine texture and noise, saturated patches (red, green, blue, yellow,
// skin), a mid-grey patch (level grey) and, when white > 0, a white patch
// of that level. The field is offset per channel so the whole image's
// channel means are equal (a neutral gray world). base and amp set the
// field's level and swing.
//
//go:norace
func naturalImage(w, h int, seed uint64, base, amp, grey, white float64) *image.NRGBA {
	r := rng(seed)
	ph := [9]float64{}
	for i := range ph {
		ph[i] = r.float() * 2 * math.Pi
	}
	type patch struct {
		rect    image.Rectangle
		r, g, b float64
	}
	patches := []patch{
		{image.Rect(w*40/100, h*15/100, w*55/100, h*35/100), 190, 50, 45},
		{image.Rect(w*58/100, h*50/100, w*75/100, h*70/100), 50, 160, 60},
		{image.Rect(w*38/100, h*65/100, w*52/100, h*90/100), 45, 70, 180},
		{image.Rect(w*80/100, h*60/100, w*95/100, h*80/100), 200, 180, 50},
		{image.Rect(w*12/100, h*15/100, w*28/100, h*40/100), 200, 150, 120},
	}
	scale := base / 110
	for i := range patches {
		patches[i].r *= scale
		patches[i].g *= scale
		patches[i].b *= scale
	}
	patches = append(patches, patch{greyPatch(w, h), grey, grey, grey})
	if white > 0 {
		patches = append(patches, patch{whitePatch(w, h), white, white, white})
	}
	// The field of channel c is base + amp·Σ weight·sin(2π(a·u+b·v)+phase)
	// over three waves, plus a fine texture 6·sin(0.9x)·sin(0.7y). Each
	// wave's sine is expanded as sin(X+Y) = sin X cos Y + cos X sin Y from
	// tables per column and per row, and computed a row at a time: the same
	// field for a few multiplications a pixel instead of nine sines (test
	// time).
	waves := [3]struct{ weight, a, b float64 }{{0.5, 1.3, 0.4}, {0.3, 0.5, -1.7}, {0.2, 3.1, 2.3}}
	var sinX, cosX [9][]float64 // [3c+k][x]: 2π·a·u + phase
	var sinY, cosY [9][]float64 // [3c+k][y]: 2π·b·v
	for i := range sinX {
		k := i % 3
		sinX[i], cosX[i] = make([]float64, w), make([]float64, w)
		for x := range w {
			sinX[i][x], cosX[i][x] = math.Sincos(2*math.Pi*waves[k].a*float64(x)/float64(w) + ph[i])
		}
		sinY[i], cosY[i] = make([]float64, h), make([]float64, h)
		for y := range h {
			sinY[i][y], cosY[i][y] = math.Sincos(2 * math.Pi * waves[k].b * float64(y) / float64(h))
		}
	}
	texX := make([]float64, w)
	for x := range texX {
		texX[x] = math.Sin(float64(x) * 0.9)
	}
	// fieldRow fills row (3 values a pixel) with row y of the field.
	fieldRow := func(y int, row []float64) {
		clear(row)
		for i := range sinX {
			c, wt := i/3, waves[i%3].weight
			sy, cy := sinY[i][y], cosY[i][y]
			for x, sx := range sinX[i] {
				row[3*x+c] += wt * (sx*cy + cosX[i][x]*sy)
			}
		}
		tex := 6 * math.Sin(float64(y)*0.7)
		for x := range w {
			for c := 0; c < 3; c++ {
				row[3*x+c] = base + amp*row[3*x+c] + tex*texX[x]
			}
		}
	}
	// which[y*w+x] is 1 + the index of the patch covering (x,y), the last
	// listed on top; 0 in the field.
	which := make([]uint8, w*h)
	for i, p := range patches {
		r := p.rect.Intersect(image.Rect(0, 0, w, h))
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				which[y*w+x] = uint8(i + 1)
			}
		}
	}
	inPatch := func(x, y int) (patch, bool) {
		if i := which[y*w+x]; i > 0 {
			return patches[i-1], true
		}
		return patch{}, false
	}
	// First pass for channel sums, second to neutralise the mean.
	row := make([]float64, 3*w)
	var sum [3]float64
	var nField float64
	for y := 0; y < h; y++ {
		fieldRow(y, row)
		for x := 0; x < w; x++ {
			if p, ok := inPatch(x, y); ok {
				sum[0] += p.r
				sum[1] += p.g
				sum[2] += p.b
				continue
			}
			nField++
			for c := 0; c < 3; c++ {
				sum[c] += row[3*x+c]
			}
		}
	}
	mean := (sum[0] + sum[1] + sum[2]) / 3
	var off [3]float64
	for c := range off {
		off[c] = (mean - sum[c]) / nField
	}
	rowY := -1
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		if p, ok := inPatch(x, y); ok {
			return p.r, p.g, p.b
		}
		if y != rowY {
			fieldRow(y, row)
			rowY = y
		}
		return row[3*x] + off[0], row[3*x+1] + off[1], row[3*x+2] + off[2]
	})
}

// castImage multiplies each channel by its factor (rounded, clamped).
//
//go:norace
func castImage(img *image.NRGBA, f [3]float64) *image.NRGBA {
	out := cloneImage(img)
	for i := 0; i < len(out.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = clampByte(float64(out.Pix[i+c]) * f[c])
		}
	}
	return out
}

// meanRGB is the mean colour of rect (inset by 3 px).
func meanRGB(img *image.NRGBA, rect image.Rectangle) [3]float64 {
	rect = rect.Inset(3)
	var s [3]float64
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			i := img.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				s[c] += float64(img.Pix[i+c])
			}
		}
	}
	n := float64(rect.Dx() * rect.Dy())
	return [3]float64{s[0] / n, s[1] / n, s[2] / n}
}

// meanAbsDiff is the mean absolute channel difference (alpha excluded).
func meanAbsDiff(a, b *image.NRGBA) float64 {
	var s int // exact, as the float64 sum of these small integers was
	for i := 0; i < len(a.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			d := int(a.Pix[i+c]) - int(b.Pix[i+c])
			s += max(d, -d)
		}
	}
	return float64(s) / float64(len(a.Pix)/4*3)
}

// newlyClipped is the share of pixels with a channel at 0 or 255 in out but
// no channel at 0 or 255 in in.
func newlyClipped(in, out *image.NRGBA) float64 {
	clipped := func(p []uint8) bool {
		return p[0] == 0 || p[0] == 255 || p[1] == 0 || p[1] == 255 || p[2] == 0 || p[2] == 255
	}
	var n int
	for i := 0; i < len(in.Pix); i += 4 {
		if clipped(out.Pix[i:i+3]) && !clipped(in.Pix[i:i+3]) {
			n++
		}
	}
	return float64(n) / float64(len(in.Pix)/4)
}

func fillRect(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
}

// landscapeImage: blue sky gradient over the top 40%, textured brown
// ground below.
func landscapeImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		t := float64(y) / float64(h)
		if t < 0.4 {
			k := t / 0.4
			return 100 + 70*k, 150 + 50*k, 225 + 10*k
		}
		tex := 15 * math.Sin(float64(x)*0.31) * math.Sin(float64(y)*0.23)
		return 120 + tex, 95 + tex, 60 + tex/2
	})
}

// foliageImage: leaves in greens with darker gaps.
func foliageImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 3, func(x, y int) (float64, float64, float64) {
		v := math.Sin(float64(x)*0.21+2*math.Sin(float64(y)*0.05)) * math.Cos(float64(y)*0.17)
		k := 0.5 + 0.5*v
		return 30 + 50*k, 60 + 110*k, 20 + 40*k
	})
}

// nightImage: a dark scene with three lamps.
func nightImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		for _, c := range [][2]float64{{0.2, 0.5}, {0.5, 0.45}, {0.8, 0.55}} {
			dx, dy := float64(x)/float64(w)-c[0], float64(y)/float64(h)-c[1]
			if dx*dx+dy*dy < 0.0009 {
				return 250, 220, 150
			}
		}
		return 18 + 8*float64(y)/float64(h), 16, 24
	})
}

// productImage: a shaded red object on a near-white studio background.
func productImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 1.5, func(x, y int) (float64, float64, float64) {
		u, v := float64(x)/float64(w)-0.5, float64(y)/float64(h)-0.5
		if d := u*u/0.04 + v*v/0.08; d < 1 {
			s := 1 - 0.5*d
			return 200 * s, 40 * s, 35 * s
		}
		return 244, 244, 246
	})
}

// sunsetImage: saturated orange sky over a dark silhouette.
func sunsetImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		t := float64(y) / float64(h)
		if t < 0.6 {
			return 245, 150 + 60*t, 40 + 30*t
		}
		return 30, 20, 25
	})
}

// snowImage: bright, almost neutral snow with soft blue-grey shading.
func snowImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		s := 10 * math.Sin(float64(x)*0.02) * math.Sin(float64(y)*0.03)
		return 225 + s, 228 + s, 235 + s
	})
}

// skinImage: a large skin-toned ellipse (a close-up face) on a dark
// background.
func skinImage(w, h int, seed uint64) *image.NRGBA {
	return newImage(w, h, seed, 2, func(x, y int) (float64, float64, float64) {
		u, v := float64(x)/float64(w)-0.5, float64(y)/float64(h)-0.5
		if u*u/0.12+v*v/0.16 < 1 {
			s := 1 - 0.15*(u+v)
			return 215 * s, 165 * s, 135 * s
		}
		return 60, 70, 80
	})
}

// clipartImage: flat-colour shapes with crisp and anti-aliased edges;
// jitter > 0 adds uniform noise in ±jitter per channel (JPEG-like).
func clipartImage(w, h int, seed uint64, jitter float64) *image.NRGBA {
	r := rng(seed)
	return newImage(w, h, seed, 0, func(x, y int) (float64, float64, float64) {
		var j [3]float64
		if jitter > 0 {
			for c := range j {
				j[c] = (2*r.float() - 1) * jitter
			}
		}
		fx, fy := float64(x), float64(y)
		cx, cy, rad := 0.3*float64(w), 0.4*float64(h), 0.2*float64(min(w, h))
		cov := clamp(0.5-(math.Hypot(fx-cx, fy-cy)-rad), 0, 1) // anti-aliased circle
		br, bg, bb := 255.0, 255.0, 255.0
		if y > h*3/4 {
			br, bg, bb = 30, 60, 160
		}
		if x > w*6/10 && x < w*9/10 && y > h/10 && y < h/2 {
			br, bg, bb = 250, 200, 20
		}
		return br + (220-br)*cov + j[0], bg + (30-bg)*cov + j[1], bb + (40-bb)*cov + j[2]
	})
}

// noisyGradient: a smooth diagonal gradient with luminance noise sigma
// (the same draw on every channel, so luma noise is exactly sigma).
func noisyGradient(w, h int, seed uint64, sigma float64) *image.NRGBA {
	r := rng(seed)
	return newImage(w, h, seed, 0, func(x, y int) (float64, float64, float64) {
		n := sigma * r.norm()
		t := float64(x+y) / float64(w+h)
		return 60 + 120*t + n, 80 + 100*t + n, 120 + 40*t + n
	})
}

// addNoise adds independent Gaussian noise sigma to every channel.
//
//go:norace
func addNoise(img *image.NRGBA, seed uint64, sigma float64) *image.NRGBA {
	r := rng(seed)
	out := cloneImage(img)
	for i := 0; i < len(out.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = clampByte(float64(out.Pix[i+c]) + sigma*r.norm())
		}
	}
	return out
}

// greyscale returns img with every pixel replaced by its luma.
//
//go:norace
func greyscale(img *image.NRGBA) *image.NRGBA {
	out := cloneImage(img)
	for i := 0; i < len(out.Pix); i += 4 {
		l := clampByte(luma8(int32(out.Pix[i]), int32(out.Pix[i+1]), int32(out.Pix[i+2])) * 255)
		out.Pix[i], out.Pix[i+1], out.Pix[i+2] = l, l, l
	}
	return out
}

// TestNormIsStandardNormal: the test images' noise has the mean, spread
// and tails of a standard normal distribution.
func TestNormIsStandardNormal(t *testing.T) {
	t.Parallel()
	r := rng(1)
	const n = 200_000
	var sum, sq float64
	var beyond2 int
	for range n {
		v := r.norm()
		sum += v
		sq += v * v
		if math.Abs(v) > 2 {
			beyond2++
		}
	}
	mean := sum / n
	assert.InDelta(t, 0, mean, 0.01)
	assert.InDelta(t, 1, math.Sqrt(sq/n-mean*mean), 0.01)
	assert.InDelta(t, 0.0455, float64(beyond2)/n, 0.002, "share beyond 2σ")
	assert.InDelta(t, -4.32, normTable[0], 0.01)
	assert.InDelta(t, 4.32, normTable[len(normTable)-1], 0.01)
}
