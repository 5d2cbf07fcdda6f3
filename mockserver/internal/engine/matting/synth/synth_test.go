package synth

import (
	"bytes"
	"image"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func withProcs(n int, fn func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	fn()
}

func TestDeterministic(t *testing.T) {
	var p1, p2 *image.NRGBA
	var a1, a2 *image.Alpha
	var q1, q2 *image.NRGBA
	var f1, f2 image.Rectangle
	withProcs(1, func() {
		p1, a1 = Product(7, 200, 150, Gradient)
		q1, _, f1 = Portrait(7, 200, 150)
	})
	withProcs(2, func() {
		p2, a2 = Product(7, 200, 150, Gradient)
		q2, _, f2 = Portrait(7, 200, 150)
	})
	assert.True(t, bytes.Equal(p1.Pix, p2.Pix))
	assert.True(t, bytes.Equal(a1.Pix, a2.Pix))
	assert.True(t, bytes.Equal(q1.Pix, q2.Pix))
	assert.Equal(t, f1, f2)
	p3, _ := Product(8, 200, 150, Gradient)
	assert.False(t, bytes.Equal(p1.Pix, p3.Pix), "seed must matter")
	p4, _ := Product(7, 200, 150, Plain)
	assert.False(t, bytes.Equal(p1.Pix, p4.Pix), "style must matter")
}

// The alpha is the one used to composite: fully transparent pixels show the
// backdrop, edges are anti-aliased, and the subject does not touch the frame.
func TestProductAlpha(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 6; seed++ {
		img, alpha := Product(seed, 320, 240, BackgroundStyle(seed%2))
		require.Equal(t, img.Rect, alpha.Rect)
		var opaque, partial, clear int
		for _, a := range alpha.Pix {
			switch a {
			case 0:
				clear++
			case 255:
				opaque++
			default:
				partial++
			}
		}
		assert.Positive(t, opaque)
		assert.Positive(t, partial, "edges are anti-aliased")
		assert.Greater(t, clear, opaque, "the backdrop dominates")
		for x := 0; x < 320; x++ {
			assert.Zero(t, alpha.AlphaAt(x, 0).A)
			assert.Zero(t, alpha.AlphaAt(x, 239).A)
		}
		for i := 3; i < len(img.Pix); i += 4 {
			if img.Pix[i] != 255 {
				require.Equal(t, uint8(255), img.Pix[i], "composites are opaque")
			}
		}
	}
}

// Cast shadows darken the backdrop right under the subject while alpha
// stays 0 there.
func TestProductShadowIsBackground(t *testing.T) {
	t.Parallel()
	img, alpha := Product(3, 320, 240, Plain)
	// lowest opaque row and its horizontal centre
	bottom, cx, n := -1, 0, 0
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			if alpha.AlphaAt(x, y).A == 255 {
				if y > bottom {
					bottom, cx, n = y, 0, 0
				}
				if y == bottom {
					cx += x
					n++
				}
			}
		}
	}
	require.Positive(t, n)
	cx /= n
	// Under the subject: alpha 0 and darker than the backdrop far away.
	y := bottom + 3
	require.Zero(t, alpha.AlphaAt(cx, y).A)
	near := lum(img, cx, y)
	far := lum(img, 5, y)
	assert.Less(t, near, far-20, "contact shadow expected under the subject")
}

func lum(img *image.NRGBA, x, y int) float64 {
	c := img.NRGBAAt(x, y)
	return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
}

func TestPortrait(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 4; seed++ {
		img, alpha, face := Portrait(seed, 320, 240)
		require.Equal(t, img.Rect, alpha.Rect)
		require.False(t, face.Empty())
		assert.True(t, face.In(img.Rect))
		// The face box is inside the subject.
		c := image.Pt((face.Min.X+face.Max.X)/2, (face.Min.Y+face.Max.Y)/2)
		assert.Equal(t, uint8(255), alpha.AlphaAt(c.X, c.Y).A)
		// The torso reaches the bottom edge; the top edge is background.
		assert.Equal(t, uint8(255), alpha.AlphaAt(c.X, 239).A)
		for x := 0; x < 320; x++ {
			assert.Zero(t, alpha.AlphaAt(x, 0).A)
		}
	}
}

func TestInvalidSizes(t *testing.T) {
	t.Parallel()
	img, a := Product(1, 0, 10, Plain)
	assert.True(t, img.Rect.Empty())
	assert.True(t, a.Rect.Empty())
	img, a, f := Portrait(1, 10, -3)
	assert.True(t, img.Rect.Empty())
	assert.True(t, a.Rect.Empty())
	assert.True(t, f.Empty())
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	r := image.Rect(0, 0, 10, 10)
	a := image.NewAlpha(r)
	b := image.NewAlpha(r)
	assert.Equal(t, 1.0, IoU(a, b, 128), "both empty")
	assert.Equal(t, 0.0, MAE(a, b))
	for i := 0; i < 50; i++ {
		a.Pix[i] = 255
	}
	for i := 25; i < 75; i++ {
		b.Pix[i] = 255
	}
	assert.InDelta(t, 25.0/75, IoU(a, b, 128), 1e-12)
	assert.InDelta(t, 50.0/100, MAE(a, b), 1e-12)
	b.Pix[80] = 127
	assert.InDelta(t, 25.0/75, IoU(a, b, 128), 1e-12, "below the threshold")
	assert.InDelta(t, (50+127.0/255)/100, MAE(a, b), 1e-12)
	assert.InDelta(t, 25.0/76, IoU(a, b, 0), 1e-12, "threshold 0 means any alpha")
}
