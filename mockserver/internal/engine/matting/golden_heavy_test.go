//go:build heavy

package matting

import (
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// Under the build tag heavy (a separate step of .ci/run), the golden set
// gains the removals analysed at a reduced resolution under the default
// bound: the 1600×1000 product_factor2_spill (pinned since 425de2c) and
// the full-size 2400×1800 product_factor3_spill (pinned since 91b6350),
// with the accelerated pipeline's parity on them; a plain go test has
// product_factor2_bounded_spill instead.
// heavyTests: see heavy_off_test.go.
const heavyTests = true

func init() {
	goldenCases = append(goldenCases,
		&goldenCase{name: "product_factor2_spill", w: 1600, h: 1000, gen: product(2, synth.Gradient),
			o: func(image.Rectangle) Options { return Options{SpillReduction: true} }},
		&goldenCase{name: "product_factor3_spill", w: 2400, h: 1800, gen: product(2, synth.Gradient),
			o: func(image.Rectangle) Options { return Options{SpillReduction: true} }})
}
