//go:build linux

package gpu

import (
	"context"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// TestAnalyseKeptOnFakeDriver checks that AnalyseKept runs the analysis
// without copying anything back and reports its size, that a refit
// (flagged NaN) then downloads the linear and L*a*b* planes once, and
// the refinement's image-wide means the raw plane once, and that a second
// analysis is an error.
func TestAnalyseKeptOnFakeDriver(t *testing.T) {
	t.Parallel()
	f, e := newFitFake(t, true) // fit_residuals flags a NaN
	const W, H = 301, 8
	sr, err := stages{e.dev}.Begin(context.Background(), image.NewNRGBA(image.Rect(0, 0, W, H)))
	require.NoError(t, err)
	r := sr.(*run)
	ctx := context.Background()
	var w, h int
	up, down := copies(f, func() { w, h, err = r.AnalyseKept(ctx, 2, true) })
	require.NoError(t, err)
	assert.Equal(t, [2]int{(W + 1) / 2, (H + 1) / 2}, [2]int{w, h})
	assert.Equal(t, [2]int{0, 0}, [2]int{up, down}, "nothing copied")
	assert.Nil(t, r.hostLin)
	_, _, err = r.AnalyseKept(ctx, 2, true)
	assert.ErrorContains(t, err, "twice")
	_, err = r.Analyse(ctx, 2, true)
	assert.ErrorContains(t, err, "twice")

	in := fitInput(w, h, true)
	var fit *matting.BackgroundFit
	_, down = copies(f, func() { fit, err = r.FitBackground(ctx, in) })
	require.NoError(t, err)
	assert.Equal(t, 1+1+2, down, "state, residuals, then the linear and L*a*b* planes for the refit")
	assert.Equal(t, matting.ReferenceFitBackground(w, h, r.hostLin, r.hostLab, in), fit)
	_, down = copies(f, func() { _, err = r.FitBackground(ctx, in) })
	require.NoError(t, err)
	assert.Equal(t, 2, down, "the planes are on the host now")

	err = r.d.do(ctx, func(wk *worker) error {
		raw, err := r.hostRawPlane(wk)
		assert.Len(t, raw, 3*w*h)
		return err
	})
	require.NoError(t, err)
	_, down = copies(f, func() {
		err = r.d.do(ctx, func(wk *worker) error { _, err := r.hostRawPlane(wk); return err })
	})
	require.NoError(t, err)
	assert.Zero(t, down, "the raw plane once")
	r.Close()
	_, _, err = r.AnalyseKept(ctx, 2, false)
	assert.Error(t, err)
	require.NoError(t, e.Close())
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}

// TestAnalyseKeptDriverErrors fails, one at a time, every allocation,
// launch and synchronisation of AnalyseKept, and every copy and
// synchronisation of the planes' download for a refit: the error is that call's *DriverError, and every
// buffer goes back to the pool.
func TestAnalyseKeptDriverErrors(t *testing.T) {
	t.Parallel()
	const W, H = 40, 30
	for _, refit := range []bool{false, true} {
		for _, op := range driverOps {
			failures := failEachCall(t, "AnalyseKept", op, func() (*fakeDriver, *Engine, func() error, func()) {
				f, e := newFitFake(t, true)
				sr, err := stages{e.dev}.Begin(context.Background(), image.NewNRGBA(image.Rect(0, 0, W, H)))
				require.NoError(t, err)
				r := sr.(*run)
				if refit {
					_, _, err := r.AnalyseKept(context.Background(), 1, false)
					require.NoError(t, err)
				}
				work := func() error {
					if refit {
						return r.hostPlanes(context.Background())
					}
					_, _, err := r.AnalyseKept(context.Background(), 1, true)
					return err
				}
				return f, e, work, r.Close
			})
			// no copies up, none back for the analysis; the download
			// allocates and launches nothing
			none := op == "cuMemcpyHtoDAsync" || (op == "cuMemcpyDtoHAsync" && !refit) ||
				(refit && (op == "cuLaunchKernel" || op == "cuMemAlloc"))
			if none {
				assert.Zero(t, failures, "no %s", op)
			} else {
				assert.Positive(t, failures, "calls %s", op)
			}
			t.Logf("refit %v: %d calls of %s failed in turn", refit, failures, op)
		}
	}
}
