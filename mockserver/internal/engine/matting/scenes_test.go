package matting

import (
	"image"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// sceneKey names a synthetic scene: synth.Product(seed, w, h, style), or
// synth.Portrait(seed, w, h) when portrait is set.
type sceneKey struct {
	portrait bool
	seed     int64
	w, h     int
	style    synth.BackgroundStyle
}

type sceneEntry struct {
	once  sync.Once
	img   *image.NRGBA
	truth *image.Alpha
	face  image.Rectangle
}

// scenes holds every scene generated so far (sceneKey → *sceneEntry).
var scenes sync.Map

// scene returns the scene k, generated once per test binary: the golden
// cases, the quality tests, the stage tests and the determinism test share
// several (for example the golden portrait_face_spill is the quality
// tests' portrait seed 2).
// synth's scenes are pure functions of their key, so a shared one is the
// one a test would generate; no test may write to it.
func scene(k sceneKey) *sceneEntry {
	v, _ := scenes.LoadOrStore(k, new(sceneEntry))
	e := v.(*sceneEntry)
	e.once.Do(func() {
		if k.portrait {
			e.img, e.truth, e.face = synth.Portrait(k.seed, k.w, k.h)
		} else {
			e.img, e.truth = synth.Product(k.seed, k.w, k.h, k.style)
		}
	})
	return e
}

// productScene is synth.Product(seed, w, h, style), generated once.
func productScene(seed int64, w, h int, style synth.BackgroundStyle) (*image.NRGBA, *image.Alpha) {
	e := scene(sceneKey{seed: seed, w: w, h: h, style: style})
	return e.img, e.truth
}

// portraitScene is synth.Portrait(seed, w, h), generated once.
func portraitScene(seed int64, w, h int) (*image.NRGBA, *image.Alpha, image.Rectangle) {
	e := scene(sceneKey{portrait: true, seed: seed, w: w, h: h})
	return e.img, e.truth, e.face
}
