package correct

import (
	"bytes"
	"image"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

const testW, testH = 600, 400

// balancedImage is a neutral, full-range photo-like image: what a camera
// with correct white balance and exposure delivers.
func balancedImage(seed uint64) *image.NRGBA {
	return naturalImage(testW, testH, seed, 128, 135, 128, 0)
}

func universalFor(t *testing.T, img *image.NRGBA) (Scene, Params) {
	t.Helper()
	g, ok := Builtin(PresetUniversal)
	require.True(t, ok)
	s := DetectScene(img, 0)
	return s, g.For(s)
}

func assertNeutral(t *testing.T, rgb [3]float64, tol float64) {
	t.Helper()
	m := (rgb[0] + rgb[1] + rgb[2]) / 3
	for c, v := range rgb {
		assert.InDelta(t, m, v, tol, "channel %d of grey patch %v", c, rgb)
	}
}

func TestApply_RemovesCastWhitePatch(t *testing.T) {
	t.Parallel()
	orig := naturalImage(testW, testH, 1, 110, 60, 128, 205)
	img := castImage(orig, [3]float64{1.15, 1.0, 0.8})
	before := meanRGB(img, greyPatch(testW, testH))
	require.Greater(t, before[0]-before[2], 40.0, "fixture must carry the cast")

	scene, p := universalFor(t, img)
	require.Equal(t, SceneUnknown, scene)
	st := Apply(img, p)
	after := meanRGB(img, greyPatch(testW, testH))
	t.Logf("grey patch before %v after %v; stats %+v", before, after, st)

	assert.True(t, st.Applied)
	assert.Equal(t, CastWhitePatch, st.Method)
	assert.InDelta(t, 1.15/0.8, st.Cast[0]/st.Cast[2], 0.03, "estimated cast R/B")
	assertNeutral(t, after, 3)
	assertNeutral(t, meanRGB(img, whitePatch(testW, testH)), 3)
}

func TestApply_RemovesCastGrayWorld(t *testing.T) {
	t.Parallel()
	// No bright highlights: the white patch is unusable, gray-world decides.
	orig := naturalImage(testW, testH, 2, 80, 30, 90, 0)
	img := castImage(orig, [3]float64{1.15, 1.0, 0.8})

	scene, p := universalFor(t, img)
	require.Equal(t, SceneUnknown, scene)
	st := Apply(img, p)
	after := meanRGB(img, greyPatch(testW, testH))
	t.Logf("grey patch after %v; stats %+v", after, st)

	assert.Equal(t, CastGrayWorld, st.Method)
	assertNeutral(t, after, 3)
}

func TestApply_CoolCast(t *testing.T) {
	t.Parallel()
	orig := naturalImage(testW, testH, 3, 110, 60, 128, 205)
	img := castImage(orig, [3]float64{0.85, 0.97, 1.2})
	_, p := universalFor(t, img)
	Apply(img, p)
	assertNeutral(t, meanRGB(img, greyPatch(testW, testH)), 3)
}

func TestApply_BalancedImageChangesLittle(t *testing.T) {
	t.Parallel()
	seeds := []uint64{10}
	if heavyTests {
		seeds = append(seeds, 11, 12)
	}
	for _, seed := range seeds {
		orig := balancedImage(seed)
		img := cloneImage(orig)
		scene, p := universalFor(t, img)
		st := Apply(img, p)
		mad := meanAbsDiff(orig, img)
		t.Logf("seed %d scene %v: mean abs diff %.2f/255, newly clipped %.4f; stats %+v",
			seed, scene, mad, newlyClipped(orig, img), st)
		assert.Less(t, mad, 4.0, "mean absolute change per channel, 8-bit levels")
		for c, g := range st.Gains {
			assert.InDelta(t, 1, g, 0.02, "gain %d", c)
		}
		assert.Less(t, newlyClipped(orig, img), 0.01)
	}
}

func TestApply_PresetNoneIsPixelIdentical(t *testing.T) {
	t.Parallel()
	orig := castImage(balancedImage(1), [3]float64{1.2, 1, 0.7})
	img := cloneImage(orig)
	g, ok := Builtin(PresetNone)
	require.True(t, ok)
	assert.True(t, g.IsIdentity())
	for _, s := range Scenes() {
		st := Apply(img, g.For(s))
		assert.False(t, st.Applied)
	}
	_, _, st := Auto(img, g, 1)
	assert.False(t, st.Applied)
	assert.Equal(t, orig.Pix, img.Pix)
	assert.Equal(t, orig.Rect, img.Rect)
}

func TestApply_IdentityParams(t *testing.T) {
	t.Parallel()
	assert.True(t, Params{}.IsIdentity())
	assert.True(t, Params{ClipLow: 1, ClipHigh: 1, SkinProtect: 1}.IsIdentity())
	assert.False(t, Params{Contrast: 0.1}.IsIdentity())
	assert.False(t, Params{Cast: 0.1}.IsIdentity())
}

func TestApply_GroupsDifferAndArePlausible(t *testing.T) {
	t.Parallel()
	warm := castImage(naturalImage(testW, testH, 21, 110, 90, 128, 205), [3]float64{1.1, 1, 0.85})
	sources := map[string]*image.NRGBA{"warm": warm}
	if !raceEnabled {
		// Under the race detector, whose subject is Auto's bands of
		// goroutines, the warm scene alone; the others without it.
		sources["balanced"] = balancedImage(20)
		sources["portrait"] = skinImage(testW, testH, 22)
		sources["scenic"] = landscapeImage(testW, testH, 23)
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			outs := map[string]*image.NRGBA{}
			for _, gname := range []string{PresetUniversal, PresetPro, PresetSchoolAndSports, PresetAttractionsAndCruiseLines} {
				g, ok := Builtin(gname)
				require.True(t, ok)
				img := cloneImage(src)
				scene, _, st := Auto(img, g, 0)
				clip := newlyClipped(src, img)
				t.Logf("%-28s scene %-9v change %5.2f newly clipped %.4f gamma %.3f", gname, scene, meanAbsDiff(src, img), clip, st.Gamma)
				assert.Less(t, clip, 0.02, "%s: newly clipped share", gname)
				outs[gname] = img
			}
			names := []string{PresetUniversal, PresetPro, PresetSchoolAndSports, PresetAttractionsAndCruiseLines}
			for i := range names {
				for j := i + 1; j < len(names); j++ {
					d := meanAbsDiff(outs[names[i]], outs[names[j]])
					t.Logf("%s vs %s: mean abs diff %.2f", names[i], names[j], d)
					assert.Greater(t, d, 1.0, "%s vs %s", names[i], names[j])
				}
			}
		})
	}
}

func TestApply_GroupCharacter(t *testing.T) {
	t.Parallel()
	// Pro is gentler than Universal, School and Sports and Attractions
	// stronger, on every scene.
	u, _ := Builtin(PresetUniversal)
	pro, _ := Builtin(PresetPro)
	ss, _ := Builtin(PresetSchoolAndSports)
	at, _ := Builtin(PresetAttractionsAndCruiseLines)
	for _, s := range Scenes() {
		assert.Less(t, pro.For(s).Contrast, u.For(s).Contrast, s)
		assert.Less(t, pro.For(s).Vibrance, u.For(s).Vibrance, s)
		assert.Greater(t, ss.For(s).Contrast, u.For(s).Contrast, s)
		assert.Greater(t, ss.For(s).Vibrance, u.For(s).Vibrance, s)
		assert.Equal(t, 1.0, ss.For(s).SkinProtect, s)
		assert.Greater(t, at.For(s).Vibrance, ss.For(s).Vibrance-0.2, s)
		assert.Greater(t, at.For(s).Vibrance+at.For(s).Saturation, u.For(s).Vibrance+u.For(s).Saturation, s)
	}
}

func TestApply_SkinProtection(t *testing.T) {
	t.Parallel()
	src := skinImage(testW, testH, 30)
	p := Params{Vibrance: 0.6, Saturation: 0.2}
	unprotected, protected := cloneImage(src), cloneImage(src)
	Apply(unprotected, p)
	p.SkinProtect = 1
	Apply(protected, p)
	face := image.Rect(testW*45/100, testH*45/100, testW*55/100, testH*55/100)
	chroma := func(rgb [3]float64) float64 { return rgb[0] - rgb[2] }
	in, un, pr := chroma(meanRGB(src, face)), chroma(meanRGB(unprotected, face)), chroma(meanRGB(protected, face))
	t.Logf("skin chroma R-B: source %.1f unprotected %.1f protected %.1f", in, un, pr)
	assert.Greater(t, un, in+5)
	assert.InDelta(t, in, pr, 1.5)
	// The background (not skin) is boosted either way.
	bg := image.Rect(0, 0, 40, 40)
	assert.Equal(t, meanRGB(unprotected, bg), meanRGB(protected, bg))
}

func TestApply_AlphaUntouched(t *testing.T) {
	t.Parallel()
	img := castImage(balancedImage(40), [3]float64{1.1, 1, 0.9})
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = uint8(i / 4 % 256)
	}
	orig := cloneImage(img)
	g, _ := Builtin(PresetSchoolAndSports)
	Auto(img, g, 0)
	for i := 0; i < len(img.Pix); i += 4 {
		if orig.Pix[i+3] != img.Pix[i+3] {
			require.Equal(t, orig.Pix[i+3], img.Pix[i+3])
		}
		if orig.Pix[i+3] == 0 && !bytes.Equal(orig.Pix[i:i+4], img.Pix[i:i+4]) {
			require.Equal(t, orig.Pix[i:i+4], img.Pix[i:i+4], "transparent pixel changed")
		}
	}
	assert.NotEqual(t, orig.Pix, img.Pix)
}

func TestApply_EdgeCases(t *testing.T) {
	t.Parallel()
	u, _ := Builtin(PresetUniversal)
	p := u.Default
	assert.NotPanics(t, func() {
		Apply(nil, p)
		Apply(image.NewNRGBA(image.Rect(0, 0, 0, 0)), p)
		Apply(image.NewNRGBA(image.Rect(0, 0, 1, 1)), p)
		Apply(image.NewNRGBA(image.Rect(0, 0, 7, 3)), p) // fully transparent
		solid := newImage(9, 9, 1, 0, func(int, int) (float64, float64, float64) { return 90, 120, 200 })
		Apply(solid, p)
		Apply(solid, Params{Cast: 1e9, ClipLow: -3, Contrast: math.NaN(), Vibrance: 5, Brightness: -9})
		DetectScene(nil, 0)
		DetectScene(image.NewNRGBA(image.Rect(0, 0, 1, 1)), 0)
		IsClipart(image.NewNRGBA(image.Rect(0, 0, 1, 1)))
		IsLegacySkip(nil)
		EstimateNoise(image.NewNRGBA(image.Rect(0, 0, 2, 2)))
	})
	// A sub-image is corrected in its own rectangle only.
	big := balancedImage(41)
	orig := cloneImage(big)
	sub := big.SubImage(image.Rect(100, 100, 300, 200)).(*image.NRGBA)
	Apply(sub, Params{Contrast: 0.5})
	assert.Equal(t, orig.Pix[:orig.PixOffset(0, 100)], big.Pix[:big.PixOffset(0, 100)])
	assert.Equal(t, orig.Pix[orig.PixOffset(0, 200):], big.Pix[big.PixOffset(0, 200):])
	assert.Equal(t, orig.NRGBAAt(99, 150), big.NRGBAAt(99, 150))
	assert.Equal(t, orig.NRGBAAt(300, 150), big.NRGBAAt(300, 150))
	assert.NotEqual(t, orig.NRGBAAt(200, 150), big.NRGBAAt(200, 150))
}

func TestApply_DeterministicAcrossGOMAXPROCS(t *testing.T) {
	// 301 rows: as many bands as cores each time, split unevenly, as
	// 1000×701 was (the split is the subject, not the size: a sixth of
	// the pixels).
	src := castImage(naturalImage(400, 301, 50, 110, 90, 128, 205), [3]float64{1.1, 1, 0.8})
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var first []byte
	var firstScene Scene
	for _, procs := range []int{1, 2, 3, 1} {
		runtime.GOMAXPROCS(procs)
		require.Equal(t, procs, parallel.Bands(src.Rect.Dy(), minBandRows))
		for _, gname := range []string{PresetSchoolAndSports} {
			g, _ := Builtin(gname)
			img := cloneImage(src)
			s, _, _ := Auto(img, g, 0)
			if first == nil {
				first, firstScene = img.Pix, s
				continue
			}
			require.Equal(t, firstScene, s, "GOMAXPROCS %d", procs)
			require.Equal(t, first, img.Pix, "GOMAXPROCS %d", procs)
		}
	}
}
