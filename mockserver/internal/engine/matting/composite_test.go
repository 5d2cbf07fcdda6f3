package matting

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSubject is a w×h image with an opaque blue square, soft-edged, in the
// upper middle (room below it for a floating shadow), and its matte.
func testSubject(w, h int) (*image.NRGBA, *Matte) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	alpha := image.NewAlpha(img.Rect)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// a square from (w/3, h/5) to (2w/3, h/2) with a 2-pixel ramp
			d := math.Max(math.Max(float64(w)/3-float64(x), float64(x)-2*float64(w)/3),
				math.Max(float64(h)/5-float64(y), float64(y)-float64(h)/2))
			a := math.Max(0, math.Min(1, 0.5-d/2))
			alpha.Pix[y*w+x] = uint8(math.Round(a * 255))
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = 30, 60, 200, 255
		}
	}
	return img, &Matte{Alpha: alpha}
}

func TestCompositeTransparent(t *testing.T) {
	img, m := testSubject(120, 90)
	for _, sh := range []Shadow{ShadowNone, ShadowSoft} {
		out := Composite(img, m, Background{Kind: Transparent, Shadow: sh})
		require.Equal(t, img.Rect, out.Rect)
		for i := 0; i < 120*90; i++ {
			assert.Equal(t, m.Alpha.Pix[i], out.Pix[4*i+3])
			if m.Alpha.Pix[i] == 0 {
				assert.Equal(t, []uint8{0, 0, 0}, out.Pix[4*i:4*i+3])
			} else {
				assert.Equal(t, img.Pix[4*i:4*i+3], out.Pix[4*i:4*i+3])
			}
		}
	}
	// Source alpha multiplies the matte.
	half := image.NewNRGBA(img.Rect)
	copy(half.Pix, img.Pix)
	for i := 3; i < len(half.Pix); i += 4 {
		half.Pix[i] = 128
	}
	out := Composite(half, m, Background{})
	c := out.NRGBAAt(60, 30) // inside the square
	assert.Equal(t, uint8(128), c.A)
}

func TestCompositeColor(t *testing.T) {
	img, m := testSubject(120, 90)
	bg := color.NRGBA{R: 250, G: 240, B: 10, A: 7} // alpha ignored
	out := Composite(img, m, Background{Kind: Color, Color: bg})
	for i := 0; i < 120*90; i++ {
		px := out.Pix[4*i : 4*i+4]
		assert.Equal(t, uint8(255), px[3])
		switch m.Alpha.Pix[i] {
		case 0:
			assert.Equal(t, []uint8{250, 240, 10, 255}, px)
		case 255:
			assert.Equal(t, []uint8{30, 60, 200, 255}, px)
		}
	}
	// An edge pixel is a blend.
	found := false
	for i := 0; i < 120*90 && !found; i++ {
		if a := m.Alpha.Pix[i]; a > 100 && a < 155 {
			found = true
			assert.InDelta(t, (30+250)/2.0, float64(out.Pix[4*i]), 30)
		}
	}
	assert.True(t, found)
	// Nil matte: the whole image is the subject.
	out = Composite(img, nil, Background{Kind: Color, Color: bg})
	assert.Equal(t, img.Pix, out.Pix)
	// Image kind without an image falls back to the colour.
	out = Composite(img, m, Background{Kind: Image, Color: bg})
	assert.Equal(t, []uint8{250, 240, 10, 255}, out.Pix[0:4])
}

func TestCompositeUsesSpillCorrectedForeground(t *testing.T) {
	img, m := testSubject(60, 40)
	fg := image.NewNRGBA(img.Rect)
	for i := 0; i < len(fg.Pix); i += 4 {
		fg.Pix[i], fg.Pix[i+1], fg.Pix[i+2], fg.Pix[i+3] = 1, 2, 3, 255
	}
	m.Foreground = fg
	out := Composite(img, m, Background{Kind: Color})
	assert.Equal(t, []uint8{1, 2, 3, 255}, out.Pix[out.PixOffset(30, 15):out.PixOffset(30, 15)+4])
}

func TestCompositeImageCoverFit(t *testing.T) {
	_, m := testSubject(100, 100)
	// Transparent subject everywhere so the background shows.
	clear(m.Alpha.Pix)
	fg := image.NewNRGBA(image.Rect(0, 0, 100, 100))

	// 200×100 onto 100×100: scale 1, the centre 100 columns.
	src := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 200; x++ {
			src.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(255 - x), 255})
		}
	}
	out := Composite(fg, m, Background{Kind: Image, Image: src})
	for _, p := range []image.Point{{0, 0}, {10, 50}, {99, 99}, {57, 3}} {
		assert.Equal(t, src.NRGBAAt(p.X+50, p.Y), out.NRGBAAt(p.X, p.Y), "pixel %v", p)
	}

	// 50×25 (left red, right blue) onto 100×100: scale 4, so the output
	// shows source columns 12.5..37.5, red on the left, blue on the right.
	small := image.NewRGBA(image.Rect(0, 0, 50, 25)) // any image type
	for y := 0; y < 25; y++ {
		for x := 0; x < 50; x++ {
			c := color.RGBA{255, 0, 0, 255}
			if x >= 25 {
				c = color.RGBA{0, 0, 255, 255}
			}
			small.SetRGBA(x, y, c)
		}
	}
	out = Composite(fg, m, Background{Kind: Image, Image: small})
	assert.Equal(t, color.NRGBA{255, 0, 0, 255}, out.NRGBAAt(10, 50))
	assert.Equal(t, color.NRGBA{255, 0, 0, 255}, out.NRGBAAt(40, 90))
	assert.Equal(t, color.NRGBA{0, 0, 255, 255}, out.NRGBAAt(60, 10))
	assert.Equal(t, color.NRGBA{0, 0, 255, 255}, out.NRGBAAt(95, 50))

	// Large downscale stays smooth and opaque: a 1000×10 gradient.
	wide := image.NewNRGBA(image.Rect(0, 0, 1000, 1000))
	for y := 0; y < 1000; y++ {
		for x := 0; x < 1000; x++ {
			v := uint8(x * 255 / 999)
			wide.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	out = Composite(fg, m, Background{Kind: Image, Image: wide})
	for x := 1; x < 100; x++ {
		assert.GreaterOrEqual(t, out.NRGBAAt(x, 50).R, out.NRGBAAt(x-1, 50).R)
		assert.Equal(t, uint8(255), out.NRGBAAt(x, 50).A)
	}
	assert.InDelta(t, 127, float64(out.NRGBAAt(50, 50).R), 3)
}

func TestCompositeShadows(t *testing.T) {
	img, m := testSubject(160, 120)
	bgImg := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for i := range bgImg.Pix {
		bgImg.Pix[i] = 220
	}
	for _, kind := range []BackgroundKind{Color, Image} {
		base := Background{Kind: kind, Color: color.NRGBA{230, 230, 230, 255}, Image: bgImg}
		plain := Composite(img, m, base)
		for _, sh := range []Shadow{ShadowSoft, ShadowHard, ShadowFloating} {
			b := base
			b.Shadow = sh
			out := Composite(img, m, b)
			darker := 0
			for i := 0; i < 160*120; i++ {
				// testify only on a mismatch (the same assertions): its
				// call per channel was most of the test's time.
				for c := 0; c < 3; c++ {
					if out.Pix[4*i+c] > plain.Pix[4*i+c] {
						assert.LessOrEqual(t, out.Pix[4*i+c], plain.Pix[4*i+c], "shadow %s brightened pixel %d", sh, i)
					}
					if m.Alpha.Pix[i] == 255 && out.Pix[4*i+c] != plain.Pix[4*i+c] {
						assert.Equal(t, plain.Pix[4*i+c], out.Pix[4*i+c], "shadow %s touched the subject", sh)
					}
				}
				if out.Pix[4*i] < plain.Pix[4*i] {
					darker++
				}
			}
			assert.Greater(t, darker, 100, "kind %d shadow %s drew nothing", kind, sh)
		}
	}
	// The floating shadow sits below the subject with a gap: the row just
	// under the subject is untouched, rows further down are darkened.
	b := Background{Kind: Color, Color: color.NRGBA{230, 230, 230, 255}, Shadow: ShadowFloating}
	out := Composite(img, m, b)
	assert.Equal(t, uint8(230), out.NRGBAAt(80, 61).R)
	minRow := 255
	for y := 62; y < 120; y++ {
		minRow = min(minRow, int(out.NRGBAAt(80, y).R))
	}
	assert.Less(t, minRow, 200)

	// Shadows are ignored for transparent and generated backgrounds.
	for _, kind := range []BackgroundKind{Transparent, Generative} {
		plain := Composite(img, m, Background{Kind: kind, Prompt: "studio"})
		withShadow := Composite(img, m, Background{Kind: kind, Prompt: "studio", Shadow: ShadowHard})
		assert.Equal(t, plain.Pix, withShadow.Pix)
	}
	// Unknown shadow: none.
	plain := Composite(img, m, Background{Kind: Color})
	assert.Equal(t, plain.Pix, Composite(img, m, Background{Kind: Color, Shadow: "neon"}).Pix)
}

func TestCompositeGenerative(t *testing.T) {
	img, m := testSubject(80, 60)
	out := Composite(img, m, Background{Kind: Generative, Prompt: "sunset beach"})
	gen := Generate("sunset beach", 80, 60)
	for i := 0; i < 80*60; i++ {
		assert.Equal(t, uint8(255), out.Pix[4*i+3])
		if m.Alpha.Pix[i] == 0 {
			assert.Equal(t, gen.Pix[4*i:4*i+3], out.Pix[4*i:4*i+3])
		}
	}
}

func TestCompositeDegenerate(t *testing.T) {
	assert.NotPanics(t, func() {
		Composite(nil, nil, Background{})
		Composite(image.NewNRGBA(image.Rectangle{}), nil, Background{Kind: Color})
		img, _ := testSubject(10, 10)
		Composite(img, &Matte{}, Background{Kind: Image, Image: image.NewNRGBA(image.Rectangle{})})
		Composite(img, &Matte{Alpha: image.NewAlpha(image.Rect(0, 0, 3, 3))}, Background{Kind: BackgroundKind(42)})
	})
}

func TestDropShadowFor(t *testing.T) {
	t.Parallel()
	d, ok := DropShadowFor(ShadowSoft, 2000, 1500)
	require.True(t, ok)
	assert.Equal(t, DropShadow{DX: 24, DY: 40, Opacity: softOpacity, Radius: 15, Factor: 2, W: 1000, H: 750}, d)
	d, ok = DropShadowFor(ShadowSoft, 60, 40) // blur below a pixel: a plain shift
	require.True(t, ok)
	assert.Equal(t, DropShadow{DX: 1, DY: 1, Opacity: softOpacity}, d)
	d, ok = DropShadowFor(ShadowHard, 1000, 500)
	require.True(t, ok)
	assert.Equal(t, DropShadow{DX: 10, DY: 16, Opacity: hardOpacity}, d)
	for _, k := range []Shadow{ShadowNone, ShadowFloating, "x"} {
		_, ok = DropShadowFor(k, 100, 100)
		assert.False(t, ok, k)
	}
}

func TestFloatingShadowPlane(t *testing.T) {
	t.Parallel()
	_, ok := FloatingShadowPlane(SubjectBox{X0: 10, Y0: 10, X1: -1, Y1: -1}, 100, 100)
	assert.False(t, ok, "no subject, no shadow")
	alpha := make([]uint8, 100*80)
	for y := 10; y < 40; y++ {
		for x := 30; x < 60; x++ {
			alpha[y*100+x] = 200
		}
	}
	b := subjectBox(alpha, 100, 80)
	assert.Equal(t, SubjectBox{X0: 30, Y0: 10, X1: 59, Y1: 39, SumX: 30 * (30 + 59) * 30 / 2, Count: 900}, b)
	p, ok := FloatingShadowPlane(b, 100, 80)
	require.True(t, ok)
	assert.Equal(t, 100*80, len(p.Plane))
	assert.Equal(t, float32(floatOpacity), p.Opacity)
}

func TestPlanCover(t *testing.T) {
	t.Parallel()
	for _, c := range [][4]int{{640, 480, 300, 200}, {50, 40, 333, 517}, {4000, 30, 64, 64}, {7, 9, 1, 1}} {
		p := PlanCover(c[0], c[1], c[2], c[3])
		require.Len(t, p.X.Start, c[2])
		require.Len(t, p.Y.Start, c[3])
		require.Len(t, p.X.W, c[2]*p.X.N)
		require.Len(t, p.Y.W, c[3]*p.Y.N)
		assert.True(t, 0 <= p.RowLo && p.RowLo < p.RowHi && p.RowHi <= c[1], "%v: rows [%d,%d)", c, p.RowLo, p.RowHi)
	}
}
