package correct

import (
	"image"
	"image/color"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sharedImages are the images TestIsClipart and TestIsLegacySkip both
// classify, rendered once (the classifiers only read them).
var sharedImages sync.Map // name -> func() *image.NRGBA (sync.OnceValue)

// shared returns the image called name, rendered by gen on first use.
func shared(name string, gen func() *image.NRGBA) *image.NRGBA {
	f, _ := sharedImages.LoadOrStore(name, sync.OnceValue(gen))
	return f.(func() *image.NRGBA)()
}

func TestIsClipart(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("classifications, and it starts no goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	solid := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	fillRect(solid, solid.Rect, color.NRGBA{40, 90, 200, 255})
	tests := []struct {
		name string
		img  *image.NRGBA
		want bool
	}{
		{"flat shapes", shared("clipart1", func() *image.NRGBA { return clipartImage(800, 600, 1, 0) }), true},
		{"flat shapes with JPEG-like noise", clipartImage(800, 600, 2, 2), true},
		{"solid colour", solid, true},
		{"photo-like", shared("balanced3", func() *image.NRGBA { return balancedImage(3) }), false},
		{"product photo on white", shared("product4", func() *image.NRGBA { return productImage(800, 600, 4) }), false},
		{"landscape", landscapeImage(800, 600, 5), false},
		{"night", shared("night6", func() *image.NRGBA { return nightImage(800, 600, 6) }), false},
		{"snow", snowImage(800, 600, 7), false},
		{"skin close-up", skinImage(800, 600, 8), false},
		{"greyscale photo", shared("grey9", func() *image.NRGBA { return greyscale(balancedImage(9)) }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := IsClipart(tc.img)
			if got != tc.want {
				t.Logf("grid: %+v", measureGrid(tc.img))
			}
			assert.Equal(t, tc.want, got)
		})
	}
	assert.False(t, IsClipart(nil))
	assert.False(t, IsClipart(image.NewNRGBA(image.Rect(0, 0, 0, 0))))
}

func TestIsLegacySkip(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("classifications, and it starts no goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	assert.True(t, IsLegacySkip(shared("clipart1", func() *image.NRGBA { return clipartImage(800, 600, 1, 0) })), "clipart")
	assert.True(t, IsLegacySkip(shared("grey9", func() *image.NRGBA { return greyscale(balancedImage(9)) })), "greyscale photo")
	assert.True(t, IsLegacySkip(greyscale(landscapeImage(800, 600, 2))), "greyscale landscape")
	assert.False(t, IsLegacySkip(shared("balanced3", func() *image.NRGBA { return balancedImage(3) })), "colour photo")
	assert.False(t, IsLegacySkip(shared("product4", func() *image.NRGBA { return productImage(800, 600, 4) })), "product photo")
	assert.False(t, IsLegacySkip(shared("night6", func() *image.NRGBA { return nightImage(800, 600, 6) })), "dark colour photo")
	assert.False(t, IsLegacySkip(nil))
}

func TestEstimateNoise(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("noise estimates, and it starts no goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	levels := []float64{0, 1, 4, 10, 20}
	var prev float64 = -1
	for _, sigma := range levels {
		img := noisyGradient(800, 600, 7, sigma)
		est := NoiseSigma(img)
		t.Logf("sigma %4.1f: estimate %.2f (%s)", sigma, est, EstimateNoise(img))
		assert.Greater(t, est, prev, "estimates increase with the noise")
		if sigma > 0 {
			assert.InEpsilon(t, sigma, est, 0.15, "estimate of sigma %v", sigma)
		}
		prev = est
	}
	assert.Equal(t, "low", EstimateNoise(noisyGradient(800, 600, 1, 0)))
	assert.Equal(t, "low", EstimateNoise(noisyGradient(800, 600, 1, 1.5)))
	assert.Equal(t, "medium", EstimateNoise(noisyGradient(800, 600, 1, 4)))
	assert.Equal(t, "high", EstimateNoise(noisyGradient(800, 600, 1, 10)))

	// On a structured photo-like image (edges, texture, patches) the
	// ordering holds too: independent channel noise adds to its own.
	base := balancedImage(4)
	var last float64
	for i, sigma := range []float64{0, 3, 8, 16} {
		est := NoiseSigma(addNoise(base, 5, sigma))
		t.Logf("photo + channel noise %4.1f: estimate %.2f", sigma, est)
		if i > 0 {
			assert.Greater(t, est, last)
		}
		last = est
	}
	assert.Equal(t, "low", EstimateNoise(base))
	assert.Equal(t, "high", EstimateNoise(addNoise(base, 5, 16)))

	assert.Equal(t, 0.0, NoiseSigma(nil))
	assert.Equal(t, "low", EstimateNoise(image.NewNRGBA(image.Rect(0, 0, 2, 2))))
}
