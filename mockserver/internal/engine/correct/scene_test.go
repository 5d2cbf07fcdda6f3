package correct

import (
	"image"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetectScene_Synthetic(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("scene classifications, and it starts no goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	tests := []struct {
		name  string
		img   *image.NRGBA
		faces int
		want  Scene
	}{
		{"sky over ground", landscapeImage(testW, testH, 1), 0, SceneLandscape},
		{"foliage", foliageImage(testW, testH, 2), 0, SceneNature},
		{"night", nightImage(testW, testH, 3), 0, SceneNight},
		{"product on white", productImage(testW, testH, 4), 0, SceneProduct},
		{"sunset", sunsetImage(testW, testH, 5), 0, SceneSunset},
		{"snow", snowImage(testW, testH, 6), 0, SceneHighKey},
		{"skin close-up, no face found", skinImage(testW, testH, 7), 0, ScenePortrait},
		{"general", balancedImage(8), 0, SceneUnknown},
		{"one face", balancedImage(9), 1, ScenePortrait},
		{"one face in a landscape", landscapeImage(testW, testH, 10), 1, ScenePortrait},
		{"three faces", foliageImage(testW, testH, 11), 3, SceneGroup},
		{"negative face count", nightImage(testW, testH, 12), -2, SceneNight},
		{"portrait orientation landscape", landscapeImage(300, 500, 13), 0, SceneLandscape},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DetectScene(tc.img, tc.faces)
			if got != tc.want {
				t.Logf("features: %+v", measure(downsample(tc.img, sceneSide)))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDetectScene_CastDoesNotFakeSkin(t *testing.T) {
	t.Parallel()
	// A tungsten-like cast makes everything warm; without a centred skin
	// area that is not a portrait, and not a sunset either.
	img := castImage(naturalImage(testW, testH, 2, 80, 30, 90, 0), [3]float64{1.15, 1, 0.8})
	assert.Equal(t, SceneUnknown, DetectScene(img, 0))
}

// sizeFactors are the renderings of TestDetectScene_SizeIndependent, in
// multiples of 600×400 (landscape) and 450×300 (product).
var sizeFactors = []int{2}

func TestDetectScene_SizeIndependent(t *testing.T) {
	t.Parallel()
	// The decision comes from a fixed-size sample; a much larger rendering
	// of the same scene gives the same category (twice testW here, four
	// times under the build tag heavy: scene_heavy_test.go).
	for _, f := range sizeFactors {
		assert.Equal(t, SceneLandscape, DetectScene(landscapeImage(f*600, f*400, 1), 0), "×%d", f)
		assert.Equal(t, SceneProduct, DetectScene(productImage(f*450, f*300, 1), 0), "×%d", f)
	}
	assert.Equal(t, SceneUnknown, DetectScene(image.NewNRGBA(image.Rect(0, 0, 0, 0)), 0))
	assert.NotPanics(t, func() { DetectScene(image.NewNRGBA(image.Rect(0, 0, 1, 300)), 0) })
}

func TestDetectScene_Deterministic(t *testing.T) {
	img := landscapeImage(1200, 800, 4)
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	runtime.GOMAXPROCS(1)
	a := measure(downsample(img, sceneSide))
	runtime.GOMAXPROCS(2)
	b := measure(downsample(img, sceneSide))
	assert.Equal(t, a, b)
}

func TestScene_Table(t *testing.T) {
	t.Parallel()
	all := Scenes()
	require.Len(t, all, 9)
	assert.Equal(t, SceneUnknown, all[0])
	for i, s := range all {
		assert.Equal(t, i-1, int(s))
		assert.True(t, s.Valid())
		byName, ok := ParseScene(s.String())
		assert.True(t, ok)
		assert.Equal(t, s, byName)
	}
	assert.Equal(t, "landscape", SceneLandscape.String())
	assert.Equal(t, "scene(42)", Scene(42).String())
	s, ok := ParseScene(" 4 ")
	assert.True(t, ok)
	assert.Equal(t, SceneNight, s)
	s, ok = ParseScene("PRODUCT")
	assert.True(t, ok)
	assert.Equal(t, SceneProduct, s)
	_, ok = ParseScene("9")
	assert.False(t, ok)
	_, ok = ParseScene("beach")
	assert.False(t, ok)
}
