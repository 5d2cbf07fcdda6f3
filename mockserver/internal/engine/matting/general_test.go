package matting

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFieldResidualsInRasterOrder checks the banded residuals against a
// walk over the grid in raster order, with and without a use mask, on
// sizes from one pixel to more grid rows than bands.
func TestFieldResidualsInRasterOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{1, 1}, {7, 1}, {1, 9}, {40, 30}, {300, 200}, {100000, 1}, {1, 100000}} {
		w, h := sz[0], sz[1]
		a := &analysis{w: w, h: h, lab: make([]float32, 3*w*h)}
		use := make([]bool, w*h)
		for i := range a.lab {
			a.lab[i] = rng.Float32() * 100
		}
		for i := range use {
			use[i] = rng.IntN(3) > 0
		}
		f := &bgModel{coef: BackgroundCoef{{0.2}, {0.3}, {0.4}}, w: w, h: h} // flat
		for _, u := range [][]bool{nil, use} {
			step := 1
			for (w/step)*(h/step) > 40000 {
				step++
			}
			want := []float32{}
			L, A, B := linToLab(f.at(0, 0))
			for y := step / 2; y < h; y += step {
				for x := step / 2; x < w; x += step {
					p := y*w + x
					if u != nil && !u[p] {
						continue
					}
					o := 3 * p
					want = append(want, float32(math.Sqrt(float64(sq(a.lab[o]-L)+sq(a.lab[o+1]-A)+sq(a.lab[o+2]-B)))))
				}
			}
			got := fieldResiduals(a, f, u)
			assert.Equal(t, len(want), len(got), "%dx%d use=%v", w, h, u != nil)
			if len(want) > 0 {
				assert.Equal(t, want, got, "%dx%d use=%v", w, h, u != nil)
			}
		}
	}
}
