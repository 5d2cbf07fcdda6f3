//go:build linux

package gpu

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// thresholdLaunches is the launch sequence of one FieldThreshold.
var thresholdLaunches = "field_residuals thresh_rank" + strings.Repeat(" fit_select", selPasses) + " thresh_final"

// testFields returns a model and a plate that fit a w×h analysis image.
func testFields(w, h int) []*matting.Field {
	const cell = 4
	p := &matting.PlateField{Cell: cell, GW: (w + cell - 1) / cell, GH: (h + cell - 1) / cell}
	p.Col = make([]float32, 3*p.GW*p.GH)
	for i := range p.Col {
		p.Col[i] = float32(i%7) / 7
	}
	return []*matting.Field{{Model: matting.BackgroundCoef{{0.4, 0.1}, {0.3}, {0.2, 0, 0.1}}}, {Plate: p}}
}

// TestFieldsOnFakeDriver checks FieldGrid's and FieldThreshold's launches
// and grids, that BGDistance reads the grid kept from FieldGrid and
// FieldThreshold the samples kept from SamplePlate (and uploads copies),
// the argument checks, and that every buffer goes back to the pool.
func TestFieldsOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{MaxIdleBytes: 1})
	require.NoError(t, err)
	const w, h = 300, 7
	r := fakeRun(t, e, w, h)
	ctx := context.Background()
	launches := func(fn func()) string {
		names, _ := launched(t, f, fn)
		return names
	}
	for _, field := range testFields(w, h) {
		var grid []float32
		var gw, gh int
		assert.Equal(t, "field_grid", launches(func() {
			assert.Equal(t, 1, uploads(f, func() { grid, gw, gh, err = r.FieldGrid(ctx, field, 4) }), "the field only")
		}))
		require.NoError(t, err)
		assert.Equal(t, [2]int{(w+3)/4 + 1, (h+3)/4 + 1}, [2]int{gw, gh})
		assert.Len(t, grid, 3*gw*gh)
		var dist []float32
		assert.Zero(t, uploads(f, func() { dist, _, _, err = r.BGDistance(ctx, grid, gw, gh, 4) }), "the grid is on the device")
		require.NoError(t, err)
		assert.Equal(t, 1, uploads(f, func() { _, _, _, err = r.BGDistance(ctx, append([]float32(nil), grid...), gw, gh, 4) }), "a copy is uploaded")
		require.NoError(t, err)
		_, _, _, err = r.BGDistance(ctx, grid[:3*gw*(gh-1)], gw, gh-1, 4)
		require.NoError(t, err, "another grid's size: uploaded")
		_ = dist

		var thr float32
		assert.Equal(t, thresholdLaunches, launches(func() {
			assert.Equal(t, 2, uploads(f, func() { thr, err = r.FieldThreshold(ctx, field, nil) }), "the field and the state")
		}))
		require.NoError(t, err)
		assert.Zero(t, thr, "the fake computes nothing")
		in := fakeRound(t, r)
		s, err := r.SamplePlate(ctx, in)
		require.NoError(t, err)
		assert.Equal(t, 2, uploads(f, func() { _, err = r.FieldThreshold(ctx, field, s.Use) }), "the samples are on the device")
		require.NoError(t, err)
		assert.Equal(t, 3, uploads(f, func() { _, err = r.FieldThreshold(ctx, field, append([]bool(nil), s.Use...)) }), "a copy is uploaded")
		require.NoError(t, err)
	}
	bad := testFields(w, h)[1]
	bad.Plate.GW++
	for _, fld := range []*matting.Field{nil, bad} {
		_, _, _, err = r.FieldGrid(ctx, fld, 4)
		assert.Error(t, err)
		_, err = r.FieldThreshold(ctx, fld, nil)
		assert.Error(t, err)
	}
	_, _, _, err = r.FieldGrid(ctx, testFields(w, h)[0], 0)
	assert.Error(t, err, "step 0")
	_, err = r.FieldThreshold(ctx, testFields(w, h)[0], make([]bool, 5))
	assert.Error(t, err, "use of the wrong size")
	r.Close()
	_, _, _, err = r.FieldGrid(ctx, testFields(w, h)[0], 4)
	assert.ErrorContains(t, err, "after Close")
	_, err = r.FieldThreshold(ctx, testFields(w, h)[0], nil)
	assert.ErrorContains(t, err, "after Close")
	require.NoError(t, e.Close(), "no buffer left in use")
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}

// TestFieldsDriverErrors fails, one at a time, every allocation, copy,
// launch and synchronisation of FieldGrid and FieldThreshold, of the
// model and the plate: the error is that call's *DriverError, and every
// buffer goes back to the pool.
func TestFieldsDriverErrors(t *testing.T) {
	t.Parallel()
	const w, h = 40, 30
	for i := range testFields(w, h) {
		for _, threshold := range []bool{false, true} {
			for _, op := range driverOps {
				failures := failEachCall(t, "fields", op, func() (*fakeDriver, *Engine, func() error, func()) {
					f, e := newFitFake(t, false)
					r := fakeRun(t, e, w, h)
					field := testFields(w, h)[i]
					work := func() error {
						if threshold {
							_, err := r.FieldThreshold(context.Background(), field, make([]bool, w*h))
							return err
						}
						_, _, _, err := r.FieldGrid(context.Background(), field, 4)
						return err
					}
					return f, e, work, r.Close
				})
				assert.Positive(t, failures, "calls %s", op)
				t.Logf("field %d threshold %v: %d calls of %s failed in turn", i, threshold, failures, op)
			}
		}
	}
}
