//go:build linux

package gpu

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// plateLaunches is the launch sequence of one SamplePlate.
const plateLaunches = "dilate_rows dilate_cols plate_use plate_sums"

// fakeRound runs BGDistance and Classify of one round on r (the fake
// driver computes nothing) and returns the plate input the pipeline
// would pass: the very slices those calls returned.
func fakeRound(t *testing.T, r *run) *matting.PlateInput {
	gw, gh := (r.w+3)/4+1, (r.h+3)/4+1
	dist, plain, shadowed, err := r.BGDistance(context.Background(), make([]float32, 3*gw*gh), gw, gh, 4)
	require.NoError(t, err)
	mask, err := r.Classify(context.Background(), dist, plain, 8)
	require.NoError(t, err)
	return &matting.PlateInput{Mask: mask, Dist: dist, Shadowed: shadowed, T: 8, Radius: 3, Cell: 4}
}

// copied returns in with copies of its slices: equal values, other
// slices, so the device must upload them.
func copied(in *matting.PlateInput) *matting.PlateInput {
	c := *in
	c.Mask = append([]bool(nil), in.Mask...)
	c.Dist = append([]float32(nil), in.Dist...)
	c.Shadowed = append([]bool(nil), in.Shadowed...)
	return &c
}

// uploads counts the fake driver's host-to-device copies during fn.
func uploads(f *fakeDriver, fn func()) int {
	up, _ := copies(f, fn)
	return up
}

// TestSamplePlateOnFakeDriver checks SamplePlate's launch sequence and
// grids, its argument checks, that Classify and SamplePlate read the
// round's planes kept on the device when handed the slices BGDistance and
// Classify returned (and upload them otherwise, or after a failed
// BGDistance overwrote them), and that every buffer goes back to the pool.
func TestSamplePlateOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	const w, h = 300, 7
	r := fakeRun(t, e, w, h)
	ctx := context.Background()
	in := fakeRound(t, r)

	var s *matting.PlateSamples
	names, grids := launched(t, f, func() {
		assert.Zero(t, uploads(f, func() { s, err = r.SamplePlate(ctx, in) }), "the round's planes are on the device")
	})
	require.NoError(t, err)
	assert.Len(t, s.Use, w*h)
	assert.Len(t, s.Sums, 4*75*2)
	assert.Zero(t, s.Count)
	assert.Equal(t, plateLaunches, names)
	assert.Equal(t, gridOf(w*h), grids[kDilateRows])
	assert.Equal(t, gridOf(w*h), grids[kPlateUse])
	assert.Equal(t, gridOf(75*2), grids[kPlateSums], "one thread per cell")

	assert.Equal(t, 3, uploads(f, func() { _, err = r.SamplePlate(ctx, copied(in)) }), "copies are uploaded")
	require.NoError(t, err)
	c := copied(in)
	c.Dist = in.Dist
	assert.Equal(t, 3, uploads(f, func() { _, err = r.SamplePlate(ctx, c) }), "dist and shadowed go together")
	require.NoError(t, err)
	c = copied(in)
	c.Mask = in.Mask
	assert.Equal(t, 2, uploads(f, func() { _, err = r.SamplePlate(ctx, c) }), "the mask alone is kept")
	require.NoError(t, err)

	// Classify reads the kept distances, or uploads what it is given.
	gw, gh := (w+3)/4+1, (h+3)/4+1
	dist, plain, _, err := r.BGDistance(ctx, make([]float32, 3*gw*gh), gw, gh, 4)
	require.NoError(t, err)
	assert.Zero(t, uploads(f, func() { _, err = r.Classify(ctx, dist, plain, 8) }))
	require.NoError(t, err)
	assert.Equal(t, 2, uploads(f, func() { _, err = r.Classify(ctx, dist, append([]float32(nil), plain...), 8) }))
	require.NoError(t, err)
	// A failed BGDistance overwrote the kept planes: dist and plain are
	// no longer theirs.
	f.mu.Lock()
	f.failOn["cuLaunchKernel"] = f.calls["cuLaunchKernel"] + 1
	f.mu.Unlock()
	_, _, _, err = r.BGDistance(ctx, make([]float32, 3*gw*gh), gw, gh, 4)
	require.Error(t, err)
	assert.Equal(t, 2, uploads(f, func() { _, err = r.Classify(ctx, dist, plain, 8) }))
	require.NoError(t, err)

	for _, bad := range []*matting.PlateInput{
		nil,
		{Mask: in.Mask[:5], Dist: in.Dist, Shadowed: in.Shadowed, Cell: 4},
		{Mask: in.Mask, Dist: in.Dist, Shadowed: in.Shadowed[1:], Cell: 4},
		{Mask: in.Mask, Dist: in.Dist, Shadowed: in.Shadowed, Cell: 0},
	} {
		_, err = r.SamplePlate(ctx, bad)
		assert.Error(t, err)
	}
	r.Close()
	_, err = r.SamplePlate(ctx, in)
	assert.ErrorContains(t, err, "after Close")
	_, _, _, err = r.BGDistance(ctx, make([]float32, 3*gw*gh), gw, gh, 4)
	assert.ErrorContains(t, err, "after Close")
	require.NoError(t, e.Close(), "no buffer left in use")
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}

// TestSamplePlateDriverErrors fails, one at a time, every allocation,
// copy, launch and synchronisation of a round's Classify and SamplePlate,
// with the round's planes kept on the device and with copies uploaded:
// the error is that call's *DriverError, and every buffer goes back to the
// pool (Close checks that none is left in use). The pool keeps no idle
// buffer, so that every allocation reaches the driver. With the planes
// kept, nothing is uploaded.
func TestSamplePlateDriverErrors(t *testing.T) {
	t.Parallel()
	const w, h = 40, 30
	for _, upload := range []bool{false, true} {
		for _, op := range driverOps {
			failures := failEachCall(t, "SamplePlate", op, func() (*fakeDriver, *Engine, func() error, func()) {
				f := newFakeDriver()
				e, err := newEngine(f, Options{MaxIdleBytes: 1})
				require.NoError(t, err)
				r := fakeRun(t, e, w, h)
				gw, gh := (w+3)/4+1, (h+3)/4+1
				dist, plain, shadowed, err := r.BGDistance(context.Background(), make([]float32, 3*gw*gh), gw, gh, 4)
				require.NoError(t, err)
				work := func() error {
					in := &matting.PlateInput{Dist: dist, Shadowed: shadowed, T: 8, Radius: 3, Cell: 4}
					var err error
					if in.Mask, err = r.Classify(context.Background(), dist, plain, 8); err != nil {
						return err
					}
					if upload {
						in = copied(in)
					}
					_, err = r.SamplePlate(context.Background(), in)
					return err
				}
				return f, e, work, r.Close
			})
			if op == "cuMemcpyHtoDAsync" && !upload {
				assert.Zero(t, failures, "no upload")
			} else {
				assert.Positive(t, failures, "a round calls %s", op)
			}
			t.Logf("upload %v: %d calls of %s failed in turn", upload, failures, op)
		}
	}
}
