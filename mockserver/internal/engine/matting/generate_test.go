package matting

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func meanRGB(pix []uint8) (r, g, b float64) {
	n := float64(len(pix) / 4)
	for i := 0; i < len(pix); i += 4 {
		r += float64(pix[i])
		g += float64(pix[i+1])
		b += float64(pix[i+2])
	}
	return r / n, g / n, b / n
}

func TestGenerateDeterministicAndPromptDependent(t *testing.T) {
	a := Generate("a cosy living room", 200, 150)
	b := Generate("  A cosy   LIVING room ", 200, 150) // normalised the same
	assert.Equal(t, a.Pix, b.Pix)
	for _, other := range []string{"a cosy kitchen", "blue sky", "", "zebra stripes"} {
		assert.NotEqual(t, a.Pix, Generate(other, 200, 150).Pix, other)
	}
	// Two prompts of the same theme still differ.
	assert.NotEqual(t, Generate("forest", 100, 80).Pix, Generate("deep forest", 100, 80).Pix)
	for i := 3; i < len(a.Pix); i += 4 {
		if a.Pix[i] != 255 {
			t.Fatal("generated background is not opaque")
		}
	}
}

func TestGenerateThemes(t *testing.T) {
	r, _, b := meanRGB(Generate("clear blue sky", 160, 120).Pix)
	assert.Greater(t, b, r+30, "sky is blue")
	r, g, b := meanRGB(Generate("forest path", 160, 120).Pix)
	assert.Greater(t, g, r, "forest is green")
	assert.Greater(t, g, b)
	r, g, b = meanRGB(Generate("clean white", 160, 120).Pix)
	assert.Greater(t, r+g+b, 3*220.0, "white is light")
	r, g, b = meanRGB(Generate("dark night", 160, 120).Pix)
	assert.Less(t, r+g+b, 3*60.0, "night is dark")
	r, _, b = meanRGB(Generate("sunset", 160, 120).Pix)
	assert.Greater(t, r, b, "sunset is warm")
	// Beach: blue sky at the top, sand at the bottom.
	img := Generate("beach", 160, 120)
	top := img.NRGBAAt(80, 5)
	bottom := img.NRGBAAt(80, 115)
	assert.Greater(t, int(top.B), int(top.R))
	assert.Greater(t, int(bottom.R), int(bottom.B))
}

func TestGenerateSizes(t *testing.T) {
	assert.True(t, Generate("x", 0, 10).Rect.Empty())
	assert.True(t, Generate("x", 10, -1).Rect.Empty())
	img := Generate("studio", 1, 1)
	assert.Equal(t, 1, img.Rect.Dx())
	// The look does not depend on the size: the centre colour of a small
	// and a larger render agree closely.
	s := Generate("sunset over the sea", 300, 200).NRGBAAt(150, 100)
	l := Generate("sunset over the sea", 1500, 1000).NRGBAAt(750, 500)
	assert.InDelta(t, float64(s.R), float64(l.R), 12)
	assert.InDelta(t, float64(s.G), float64(l.G), 12)
	assert.InDelta(t, float64(s.B), float64(l.B), 12)
}
