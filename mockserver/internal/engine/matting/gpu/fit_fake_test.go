//go:build linux

package gpu

import (
	"context"
	"image"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// medianLaunches is the launch sequence of one channel's median of a
// FitBackground without a starting model.
var medianLaunches = "fit_gather" + strings.Repeat(" fit_select", selPasses) + " fit_init"

// fitLaunches is the launch sequence of one FitBackground from a model.
var fitLaunches = func() string {
	round := "fit_residuals" + strings.Repeat(" fit_select", selPasses) + " fit_weights fit_partial fit_sums fit_solve"
	return "fit_basis " + strings.Repeat(round+" ", matting.FitRounds) + "fit_residuals"
}()

// TestFitStateLayout checks fitState against struct fitstate's layout in
// kernels.cu, whose static_asserts give the same size and the flag's and
// count's offsets.
func TestFitStateLayout(t *testing.T) {
	t.Parallel()
	var s fitState
	assert.Equal(t, uintptr(8824), unsafe.Sizeof(s))
	assert.Equal(t, uintptr(8808), unsafe.Offsetof(s.Count))
	assert.Equal(t, uintptr(8816), unsafe.Offsetof(s.Ticket))
	assert.Equal(t, uintptr(144), unsafe.Offsetof(s.CutK))
	assert.Equal(t, uintptr(160), unsafe.Offsetof(s.Flag))
	assert.Equal(t, uintptr(168), unsafe.Offsetof(s.Prefix))
	assert.Equal(t, uintptr(176), unsafe.Offsetof(s.Cut))
	assert.Equal(t, uintptr(184), unsafe.Offsetof(s.ATA))
	assert.Equal(t, uintptr(472), unsafe.Offsetof(s.ATB))
	assert.Equal(t, uintptr(616), unsafe.Offsetof(s.Hist))
	assert.Equal(t, uintptr(164), fitHead)
	assert.Equal(t, 39, fitEntries)
}

// newFitFake returns a fake driver (with nan, one whose fit_residuals
// flags a NaN residual: it sets the flag of the state, its fifth
// parameter, so that FitBackground refits on the host) and an engine on
// it that keeps no idle buffer.
func newFitFake(t *testing.T, nan bool) (*fakeDriver, *Engine) {
	return newFlagFake(t, nan, kFitResiduals, 4, unsafe.Offsetof(fitState{}.Flag))
}

// fitInput returns a fit of every third pixel of a w×h image, starting
// from a model with every coefficient set.
func fitInput(w, h int, residuals bool) *matting.FitInput {
	in := &matting.FitInput{Residuals: residuals, Init: new(matting.BackgroundCoef)}
	for p := 0; p < w*h; p += 3 {
		in.Samples = append(in.Samples, int32(p))
	}
	for c := range in.Init {
		for k := range in.Init[c] {
			in.Init[c][k] = 0.1 * float64(c+k+1)
		}
	}
	return in
}

// TestFitBackgroundOnFakeDriver checks FitBackground's launch sequence and
// grids, that it uploads only the samples and the state, that a flagged
// NaN gives the host's refit, its argument checks, and that every buffer
// goes back to the pool.
func TestFitBackgroundOnFakeDriver(t *testing.T) {
	t.Parallel()
	for _, nan := range []bool{false, true} {
		f, e := newFitFake(t, nan)
		const w, h = 300, 7
		r := fakeRun(t, e, w, h)
		ctx := context.Background()
		in := fitInput(w, h, true)
		var fit *matting.BackgroundFit
		var err error
		names, grids := launched(t, f, func() {
			assert.Equal(t, 2, uploads(f, func() { fit, err = r.FitBackground(ctx, in) }), "samples and state")
		})
		require.NoError(t, err)
		require.Len(t, fit.Residuals, len(in.Samples))
		if nan {
			assert.Equal(t, matting.ReferenceFitBackground(w, h, r.hostLin, r.hostLab, in), fit, "the host's refit")
		} else {
			// the fake runs no kernel: the state comes back as uploaded
			assert.Equal(t, *in.Init, fit.Coef)
		}
		assert.Equal(t, fitLaunches, names)
		assert.Equal(t, gridOf(len(in.Samples)), grids[kFitResiduals], "one thread per sample")
		assert.Equal(t, gridOf((len(in.Samples)+selPerThread-1)/selPerThread), grids[kFitSelect], "selPerThread values a thread")
		assert.Equal(t, gridOf(1), grids[kFitSolve])
		assert.Equal(t, gridOf(fitEntries*fitChunks(len(in.Samples))), grids[kFitPartial], "one thread per entry and chunk")
		assert.Equal(t, gridOf(fitEntries), grids[kFitSums], "one thread per entry")

		noRes := fitInput(w, h, false)
		fit, err = r.FitBackground(ctx, noRes)
		require.NoError(t, err)
		assert.Nil(t, fit.Residuals, "not asked for")

		// no starting model: the medians first
		medians := fitInput(w, h, false)
		medians.Init = nil
		names, _ = launched(t, f, func() { _, err = r.FitBackground(ctx, medians) })
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat(medianLaunches+" ", 3)+fitLaunches, names)

		// no sample: the CPU's zero model, with no device work
		empty := &matting.FitInput{Init: in.Init, Residuals: true}
		names, _ = launched(t, f, func() { fit, err = r.FitBackground(ctx, empty) })
		require.NoError(t, err)
		assert.Equal(t, matting.ReferenceFitBackground(w, h, r.hostLin, r.hostLab, empty), fit)
		assert.Empty(t, names)

		for _, bad := range []*matting.FitInput{nil, {Samples: []int32{0, w * h}}, {Samples: []int32{-1}}} {
			_, err = r.FitBackground(ctx, bad)
			assert.Error(t, err)
		}
		r.Close()
		_, err = r.FitBackground(ctx, in)
		assert.ErrorContains(t, err, "after Close")
		require.NoError(t, e.Close(), "no buffer left in use")
		_, live, _, _, _ := f.snapshot()
		assert.Zero(t, live)
	}
}

// TestFitBackgroundBeforeAnalyse checks that a fit needs the analysis.
func TestFitBackgroundBeforeAnalyse(t *testing.T) {
	t.Parallel()
	_, e := newFitFake(t, false)
	defer func() { require.NoError(t, e.Close()) }()
	sr, err := stages{e.dev}.Begin(context.Background(), image.NewNRGBA(image.Rect(0, 0, 8, 8)))
	require.NoError(t, err)
	defer sr.Close()
	_, err = sr.(*run).FitBackground(context.Background(), fitInput(8, 8, false))
	assert.ErrorContains(t, err, "before Analyse")
}

// TestFitBackgroundDriverErrors fails, one at a time, every allocation,
// copy, launch and synchronisation of FitBackground, with and without the
// residuals: the error is that call's *DriverError, and every buffer goes
// back to the pool (Close checks that none is left in use).
func TestFitBackgroundDriverErrors(t *testing.T) {
	t.Parallel()
	const w, h = 40, 30
	for _, residuals := range []bool{false, true} {
		for _, op := range driverOps {
			failures := failEachCall(t, "FitBackground", op, func() (*fakeDriver, *Engine, func() error, func()) {
				f, e := newFitFake(t, false)
				r := fakeRun(t, e, w, h)
				in := fitInput(w, h, residuals)
				work := func() error {
					_, err := r.FitBackground(context.Background(), in)
					return err
				}
				return f, e, work, r.Close
			})
			assert.Positive(t, failures, "FitBackground calls %s", op)
			t.Logf("residuals %v: %d calls of %s failed in turn", residuals, failures, op)
		}
	}
}
