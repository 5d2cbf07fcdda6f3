//go:build heavy

package matting

import (
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// Under the build tag heavy (a separate step of .ci/run), the golden set
// gains the full-size 2400×1800 removal: its CPU output pinned since
// 91b6350, and the accelerated pipeline's parity on it, as before the
// default set took the smaller product_factor2_spill.
// heavyTests: see heavy_off_test.go.
const heavyTests = true

func init() {
	goldenCases = append(goldenCases, &goldenCase{name: "product_factor3_spill", w: 2400, h: 1800, gen: product(2, synth.Gradient),
		o: func(image.Rectangle) Options { return Options{SpillReduction: true} }})
}
