//go:build cuda && linux

package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// emuBlocksEngine is the engine on the emulator running every launch as
// its grid of blocks, one after the other (emuDriver.blocks).
func emuBlocksEngine(t *testing.T) *Engine {
	d := newEmuDriver(t)
	d.blocks = true
	e, err := newEngine(d, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// TestEmulatedBlocks runs the kernels whose blocks cooperate with their
// launch's grid of blocks, each block after the other: the radix
// select's passes, where the last block to finish picks the digit from
// the counts all the blocks added, and the mask clean-up's counts and
// numbering by tiles of one block each; the fits, labellings and steps
// must equal the reference's as with one block.
func TestEmulatedBlocks(t *testing.T) {
	t.Parallel()
	e := emuBlocksEngine(t)
	for i, sz := range [][3]int{{17, 9, 60}, {64, 48, 2000}, {200, 150, 20000}} {
		for _, init := range []*matting.BackgroundCoef{nil, {{0.3}, {0.4}, {0.5}}} {
			c := genFitCase([]string{"random", "quantized", "outliers"}[i], sz[0], sz[1], sz[2], uint64(i+1), init)
			st, res := devFit(t, e, c)
			require.Zero(t, st.Flag, c.name)
			requireSameFit(t, c.name, len(c.in.Samples), matting.ReferenceFitBackground(c.w, c.h, c.lin, c.lab, c.in), st.Coef, res)
		}
	}
	for _, sz := range [][2]int{{1, 1}, {40, 1}, {1, 70}, {97, 61}, {300, 200}} {
		for _, kind := range maskKinds {
			f := genField(kind, sz[0], sz[1], 3)
			compareSnaps(t, fmt.Sprintf("%s %dx%d", kind, f.w, f.h), devSteps(t, e, f), cpuSteps(f))
		}
	}
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		w, h := 8+r.IntN(300), 8+r.IntN(300)
		mask := genMask([]string{"channels", "slits", "blobs", "lines"}[seed%4], w, h, seed)
		maxGap := 1 + r.IntN(6)
		want := append([]bool(nil), mask...)
		matting.ReferenceFillSlits(want, w, h, maxGap)
		got := runMaskStep(t, e, w, h, mask, func(c *cleanup) error { return c.fillSlits(maxGap) })
		require.Equal(t, want, got, "%dx%d seed %d maxGap %d", w, h, seed, maxGap)
	}
}
