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

// planLaunches is the launch sequence of one PlanRefine; with the image's
// means, refine_means comes before refine.
const planLaunches = "refine_edges dilate_rows dilate_cols dilate_rows dilate_cols refine_cells fill_i32 refine_stats"

// newPlanFake returns a fake driver (with means, one whose refine_stats
// reports a cell that needs the image's means: it sets the kernel's flag,
// its last parameter) and an engine on it that keeps no idle buffer.
func newPlanFake(t *testing.T, means bool) (*fakeDriver, *Engine) {
	return newFlagFake(t, means, kRefineStats, len(kernelSig[kRefineStats])-1, 0)
}

// TestPlanRefineOnFakeDriver checks PlanRefine's launch sequence and grids,
// with and without the image's means, that it reads the mask kept from the
// round's Classify (and uploads a copy, or after a failed Classify), its
// argument checks, and that every buffer goes back to the pool.
func TestPlanRefineOnFakeDriver(t *testing.T) {
	t.Parallel()
	for _, means := range []bool{false, true} {
		f, e := newPlanFake(t, means)
		const w, h = 300, 7
		r := fakeRun(t, e, w, h)
		ctx := context.Background()
		mask := fakeRound(t, r).Mask
		want := planLaunches
		meansUploads := 0
		if means {
			want += " refine_means"
			meansUploads = 1
		}
		want += " refine"

		f.mu.Lock()
		f.launches = nil
		f.mu.Unlock()
		in := &matting.RefinePlanInput{Mask: mask, BandRadius: 1, StatsRadius: 5, Spill: true}
		var alpha *image.Alpha
		var fg *image.NRGBA
		var err error
		names, grids := launched(t, f, func() {
			assert.Equal(t, meansUploads, uploads(f, func() { alpha, fg, err = r.PlanRefine(ctx, in) }), "the mask is on the device")
		})
		require.NoError(t, err)
		require.NotNil(t, alpha)
		require.NotNil(t, fg)
		assert.Equal(t, image.Rect(0, 0, w, h), alpha.Rect)
		assert.Equal(t, alpha.Rect, fg.Rect)
		assert.Equal(t, want, names, "means %v", means)
		assert.Equal(t, gridOf(w*h), grids[kRefineStats], "one thread per cell")
		assert.Equal(t, gridOf(1), grids[kFillI32])

		c := &matting.RefinePlanInput{Mask: append([]bool(nil), mask...), BandRadius: 1, StatsRadius: 5}
		assert.Equal(t, 1+meansUploads, uploads(f, func() { alpha, fg, err = r.PlanRefine(ctx, c) }), "a copy is uploaded")
		require.NoError(t, err)
		assert.Nil(t, fg, "no spill, no foreground")
		// a failed Classify overwrote the kept mask
		gw, gh := (w+3)/4+1, (h+3)/4+1
		dist, plain, _, err := r.BGDistance(ctx, make([]float32, 3*gw*gh), gw, gh, 4)
		require.NoError(t, err)
		f.mu.Lock()
		f.failOn["cuLaunchKernel"] = f.calls["cuLaunchKernel"] + 1
		f.mu.Unlock()
		_, err = r.Classify(ctx, dist, plain, 8)
		require.Error(t, err)
		assert.Equal(t, 1+meansUploads, uploads(f, func() { _, _, err = r.PlanRefine(ctx, in) }))
		require.NoError(t, err)

		for _, bad := range []*matting.RefinePlanInput{nil, {Mask: mask[1:], StatsRadius: 5}, {Mask: mask, StatsRadius: 0}} {
			_, _, err = r.PlanRefine(ctx, bad)
			assert.Error(t, err)
		}
		r.Close()
		_, _, err = r.PlanRefine(ctx, in)
		assert.ErrorContains(t, err, "after Close")
		require.NoError(t, e.Close(), "no buffer left in use")
		_, live, _, _, _ := f.snapshot()
		assert.Zero(t, live)
	}
}

// TestPlanRefineDriverErrors fails, one at a time, every allocation, copy,
// launch and synchronisation of PlanRefine, with the mask kept from the
// round's Classify and uploaded, with and without the image's means: the
// error is that call's *DriverError, and every buffer goes back to the
// pool (Close checks that none is left in use). With the mask kept and no
// means, nothing is uploaded.
func TestPlanRefineDriverErrors(t *testing.T) {
	t.Parallel()
	const w, h = 40, 30
	for _, means := range []bool{false, true} {
		for _, upload := range []bool{false, true} {
			for _, op := range driverOps {
				failures := failEachCall(t, "PlanRefine", op, func() (*fakeDriver, *Engine, func() error, func()) {
					f, e := newPlanFake(t, means)
					r := fakeRun(t, e, w, h)
					in := &matting.RefinePlanInput{Mask: fakeRound(t, r).Mask, BandRadius: 1, StatsRadius: 5, Spill: true}
					if upload {
						in.Mask = append([]bool(nil), in.Mask...)
					}
					work := func() error {
						_, _, err := r.PlanRefine(context.Background(), in)
						return err
					}
					return f, e, work, r.Close
				})
				if op == "cuMemcpyHtoDAsync" && !upload && !means {
					assert.Zero(t, failures, "no upload")
				} else {
					assert.Positive(t, failures, "PlanRefine calls %s", op)
				}
				t.Logf("means %v upload %v: %d calls of %s failed in turn", means, upload, failures, op)
			}
		}
	}
}
