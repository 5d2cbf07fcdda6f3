package resize

import (
	"image"
	"image/color"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allKernels = []Kernel{Lanczos3, CatmullRom, Linear, Box}

func fill(w, h int, c color.NRGBA) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return m
}

func TestResizeConstantStaysConstant(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("pixel values, not goroutines (the resampler's run in TestResizeSameCoresSameBytes): checked without the race detector (go test)")
	}
	sizes := [][4]int{{100, 80, 37, 29}, {100, 80, 300, 211}, {7, 5, 1, 1}, {1, 1, 9, 4}, {64, 64, 64, 17}, {33, 90, 33, 91}}
	for _, c := range []color.NRGBA{{0, 0, 0, 255}, {255, 255, 255, 255}, {12, 200, 97, 255}, {12, 200, 97, 128}, {250, 3, 60, 1}} {
		for _, k := range allKernels {
			for _, s := range sizes {
				out := Resize(fill(s[0], s[1], c), s[2], s[3], k)
				require.Equal(t, image.Rect(0, 0, s[2], s[3]), out.Rect)
				for i := 0; i < len(out.Pix); i += 4 {
					got := color.NRGBA{out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3]}
					if got != c { // testify per pixel costs more than the resize
						require.Equal(t, c, got, "kernel %s, %v, pixel %d", k, s, i/4)
					}
				}
			}
		}
	}
}

func TestResizeSameCoresSameBytes(t *testing.T) {
	src := naturalImage(301, 203, 7)
	withAlpha := naturalImage(203, 301, 8)
	for i := 3; i < len(withAlpha.Pix); i += 4 {
		withAlpha.Pix[i] = uint8(i * 7 / 3)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, img := range []*image.NRGBA{src, withAlpha} {
		for _, size := range [][2]int{{97, 61}, {640, 480}, {301, 50}} {
			runtime.GOMAXPROCS(1)
			want := Resize(img, size[0], size[1], Lanczos3)
			for _, procs := range []int{2, 3, 7} {
				runtime.GOMAXPROCS(procs)
				got := Resize(img, size[0], size[1], Lanczos3)
				require.Equal(t, want.Pix, got.Pix, "GOMAXPROCS %d, size %v", procs, size)
			}
		}
	}
}

// areaAverage is the exact box downscale by an integer factor.
func areaAverage(src *image.NRGBA, f int) *image.NRGBA {
	w, h := src.Rect.Dx()/f, src.Rect.Dy()/f
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				sum := 0
				for yy := y * f; yy < (y+1)*f; yy++ {
					for xx := x * f; xx < (x+1)*f; xx++ {
						sum += int(src.Pix[yy*src.Stride+xx*4+c])
					}
				}
				out.Pix[y*out.Stride+x*4+c] = uint8((sum + f*f/2) / (f * f))
			}
		}
	}
	return out
}

func TestResizeDownscaleMatchesAreaAverage(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("pixel values, not goroutines (the resampler's run in TestResizeSameCoresSameBytes): checked without the race detector (go test)")
	}
	// A one-pixel checkerboard (pure high frequency, must average to grey)
	// on top of slow gradients.
	const w, h = 480, 360
	src := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*src.Stride + x*4
			d := 40
			if (x+y)%2 == 1 {
				d = -40
			}
			src.Pix[i] = uint8(60 + x*120/w + d)
			src.Pix[i+1] = uint8(60 + y*120/h + d)
			src.Pix[i+2] = uint8(128 + d)
			src.Pix[i+3] = 255
		}
	}
	for _, k := range allKernels {
		for _, f := range []int{2, 4, 8, 24} {
			ref := areaAverage(src, f)
			got := Resize(src, w/f, h/f, k)
			var sum, worst float64
			// Borders differ legitimately (edge replication vs. clipping).
			b := 2
			n := 0
			for y := b; y < h/f-b; y++ {
				for x := b; x < w/f-b; x++ {
					for c := 0; c < 3; c++ {
						i := y*got.Stride + x*4 + c
						d := math.Abs(float64(got.Pix[i]) - float64(ref.Pix[i]))
						sum += d
						worst = max(worst, d)
						n++
					}
				}
			}
			mean := sum / float64(n)
			assert.LessOrEqual(t, mean, 1.0, "kernel %s, factor %d: mean abs diff", k, f)
			assert.LessOrEqual(t, worst, 3.0, "kernel %s, factor %d: max abs diff", k, f)
		}
	}
}

func TestResizeAlphaEdgesHaveNoDarkFringe(t *testing.T) {
	t.Parallel()
	// Opaque orange disc on fully transparent black: without premultiplied
	// filtering the edge would mix in the black of the transparent pixels.
	const size = 120
	src := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)-59.5, float64(y)-59.5
			if dx*dx+dy*dy < 40*40 {
				copy(src.Pix[y*src.Stride+x*4:], []uint8{255, 160, 20, 255})
			}
		}
	}
	for _, k := range allKernels {
		for _, s := range []int{37, 61, 200, 355} {
			out := Resize(src, s, s, k)
			partial := 0
			for i := 0; i < len(out.Pix); i += 4 {
				a := out.Pix[i+3]
				if a == 0 {
					continue
				}
				if a < 255 {
					partial++
				}
				if a < 4 {
					continue // too faint for the colour to be meaningful
				}
				r, g, b := int(out.Pix[i]), int(out.Pix[i+1]), int(out.Pix[i+2])
				if r >= 252 && g >= 157 && g <= 163 && b >= 17 && b <= 23 {
					continue // testify per pixel costs more than the resize
				}
				assert.InDelta(t, 255, r, 3, "kernel %s size %d: red at %d (alpha %d)", k, s, i/4, a)
				assert.InDelta(t, 160, g, 3, "kernel %s size %d: green at %d (alpha %d)", k, s, i/4, a)
				assert.InDelta(t, 20, b, 3, "kernel %s size %d: blue at %d (alpha %d)", k, s, i/4, a)
			}
			if k != Box {
				assert.Positive(t, partial, "kernel %s size %d: the edge should be soft", k, s)
			}
		}
	}
}

func TestResizeSubImageAndCopy(t *testing.T) {
	t.Parallel()
	src := naturalImage(50, 40, 3)
	sub := src.SubImage(image.Rect(10, 5, 30, 25)).(*image.NRGBA)

	same := Resize(sub, 20, 20, Lanczos3)
	require.Equal(t, image.Rect(0, 0, 20, 20), same.Rect)
	for y := 0; y < 20; y++ {
		for x := 0; x < 20; x++ {
			require.Equal(t, sub.NRGBAAt(10+x, 5+y), same.NRGBAAt(x, y))
		}
	}
	same.Pix[0] ^= 0xff
	assert.NotEqual(t, same.Pix[0], sub.Pix[0], "the result must not share memory with src")

	half := Resize(sub, 10, 10, Lanczos3)
	crop := image.NewNRGBA(image.Rect(0, 0, 20, 20))
	for y := 0; y < 20; y++ {
		copy(crop.Pix[y*crop.Stride:], sub.Pix[sub.PixOffset(10, 5+y):sub.PixOffset(30, 5+y)])
	}
	assert.Equal(t, Resize(crop, 10, 10, Lanczos3).Pix, half.Pix)
}

func TestResizeDegenerateSizes(t *testing.T) {
	t.Parallel()
	src := naturalImage(9, 3, 4)
	assert.Equal(t, image.Rect(0, 0, 1, 1), Resize(src, 0, -5, Lanczos3).Rect)
	assert.Equal(t, image.Rect(0, 0, 1000, 1), Resize(src, 1000, 1, CatmullRom).Rect)
	assert.Equal(t, image.Rect(0, 0, 3, 3), Resize(image.NewNRGBA(image.Rect(0, 0, 0, 0)), 3, 3, Lanczos3).Rect)
	one := Resize(naturalImage(2000, 10, 5), 1, 1, Lanczos3)
	assert.Equal(t, uint8(255), one.Pix[3])
}

func TestTapsSumToOne(t *testing.T) {
	t.Parallel()
	for _, k := range allKernels {
		for _, c := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {100, 33}, {33, 100}, {4000, 1200}, {64, 20000}} {
			tp := makeTaps(c[0], c[1], k)
			for i := 0; i < c[1]; i++ {
				var sum int32
				for _, w := range tp.w[i*tp.n : (i+1)*tp.n] {
					sum += w
				}
				if sum == weightOne && tp.start[i] >= 0 && tp.start[i]+tp.n <= c[0] {
					continue // testify per output costs more than the taps
				}
				require.Equal(t, int32(weightOne), sum, "kernel %s %v output %d", k, c, i)
				require.GreaterOrEqual(t, tp.start[i], 0)
				require.LessOrEqual(t, tp.start[i]+tp.n, c[0])
			}
		}
	}
}
