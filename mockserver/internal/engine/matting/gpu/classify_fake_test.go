//go:build linux

package gpu

import (
	"context"
	"image"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// classifyLaunches is the launch sequence of one Classify (see
// cleanup.classify).
func classifyLaunches() string {
	cc := "cc_init cc_union cc_flatten cc_scan cc_number cc_label cc_stats"
	keep := cc + " fill_i32 keep_largest keep_apply"
	holes := "fill_i32 count_true " + cc + " holes_apply"
	return strings.Join([]string{
		"smooth_lab mask_above", keep,
		cc + " fill_u8 fill_i32 slit_rows slit_cols slit_wide", holes,
		"flood_prep " + cc + " cc_init cc_union cc_flatten fill_u8 flood_hit flood_apply",
		keep, holes,
	}, " ")
}

// fakeRun begins a removal of a w×h image on e and analyses it.
func fakeRun(t *testing.T, e *Engine, w, h int) *run {
	r, err := stages{e.dev}.Begin(context.Background(), image.NewNRGBA(image.Rect(0, 0, w, h)))
	require.NoError(t, err)
	_, err = r.Analyse(context.Background(), 1, false)
	require.NoError(t, err)
	return r.(*run)
}

// TestClassifyLaunchesOnFakeDriver checks Classify's launch sequence and
// grids, its argument checks, and that its buffers go back to the pool.
func TestClassifyLaunchesOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	const w, h = 300, 7 // 2100 pixels: 2 tiles of the numbering
	r := fakeRun(t, e, w, h)
	var mask []bool
	names, grids := launched(t, f, func() {
		mask, err = r.Classify(context.Background(), make([]float32, w*h), make([]float32, w*h), 8)
	})
	require.NoError(t, err)
	assert.Len(t, mask, w*h)
	assert.Equal(t, classifyLaunches(), names)
	assert.Equal(t, gridOf(w*h), grids[kCCUnion])
	assert.Equal(t, uint32(2), grids[kCCNumber], "one block per tile")
	assert.Equal(t, uint32(2), grids[kCCFlatten], "one block per tile")
	assert.Equal(t, uint32(1), grids[kCCScan], "one block")
	assert.Equal(t, gridOf((w*h+3)/4), grids[kCountTrue], "four pixels a thread")
	assert.Equal(t, gridOf(w*h), grids[kSlitRows], "one thread per pixel")
	assert.Equal(t, gridOf(w*h), grids[kSlitCols], "one thread per pixel")
	assert.Equal(t, gridOf(w*h), grids[kSlitWide], "one thread per pixel")

	_, err = r.Classify(context.Background(), make([]float32, 5), make([]float32, w*h), 8)
	assert.ErrorContains(t, err, "wrong size")
	r.Close()
	_, err = r.Classify(context.Background(), make([]float32, w*h), make([]float32, w*h), 8)
	assert.ErrorContains(t, err, "after Close")
	require.NoError(t, e.Close(), "no buffer left in use")
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}

// TestClassifyDriverErrors fails, one at a time, every allocation, copy,
// launch and synchronisation of a Classify: the error is that call's
// *DriverError, and every buffer goes back to the pool (Close checks
// that none is left in use).
func TestClassifyDriverErrors(t *testing.T) {
	t.Parallel()
	const w, h = 40, 30
	for _, op := range driverOps {
		failures := failEachCall(t, "Classify", op, func() (*fakeDriver, *Engine, func() error, func()) {
			f := newFakeDriver()
			e, err := newEngine(f, Options{})
			require.NoError(t, err)
			r := fakeRun(t, e, w, h)
			work := func() error {
				_, err := r.Classify(context.Background(), make([]float32, w*h), make([]float32, w*h), 8)
				return err
			}
			return f, e, work, r.Close
		})
		assert.Positive(t, failures, "Classify calls %s", op)
		t.Logf("%d calls of %s failed in turn", failures, op)
	}
}

// copies counts the fake driver's copies each way during fn.
func copies(f *fakeDriver, fn func()) (up, down int) {
	f.mu.Lock()
	u, d := f.calls["cuMemcpyHtoDAsync"], f.calls["cuMemcpyDtoHAsync"]
	f.mu.Unlock()
	fn()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls["cuMemcpyHtoDAsync"] - u, f.calls["cuMemcpyDtoHAsync"] - d
}

// TestBGDistanceKeptOnFakeDriver checks that BGDistanceKept runs bgdist
// without copying anything back, that Classify and SamplePlate then read
// the kept distances when handed nil (and copy nothing up for them), and
// that nil distances without BGDistanceKept, or after a BGDistance, are
// errors.
func TestBGDistanceKeptOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	const w, h = 300, 7
	r := fakeRun(t, e, w, h)
	ctx := context.Background()
	gw, gh := (w+3)/4+1, (h+3)/4+1
	grid := make([]float32, 3*gw*gh)

	_, err = r.Classify(ctx, nil, nil, 8)
	assert.ErrorContains(t, err, "without BGDistanceKept")
	up, down := copies(f, func() { err = r.BGDistanceKept(ctx, grid, gw, gh, 4) })
	require.NoError(t, err)
	assert.Equal(t, [2]int{1, 0}, [2]int{up, down}, "the grid up, nothing back")
	var mask []bool
	up, down = copies(f, func() { mask, err = r.Classify(ctx, nil, nil, 8) })
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 1}, [2]int{up, down}, "the mask back only")
	in := &matting.PlateInput{Mask: mask, T: 8, Radius: 3, Cell: 4}
	up, _ = copies(f, func() { _, err = r.SamplePlate(ctx, in) })
	require.NoError(t, err)
	assert.Zero(t, up, "the mask and the distances are on the device")

	_, _, _, err = r.BGDistance(ctx, grid, gw, gh, 4)
	require.NoError(t, err)
	_, err = r.Classify(ctx, nil, nil, 8)
	assert.ErrorContains(t, err, "without BGDistanceKept", "BGDistance's copies are the host's")
	_, err = r.SamplePlate(ctx, in)
	assert.ErrorContains(t, err, "without BGDistanceKept")
	assert.Error(t, r.BGDistanceKept(ctx, grid[1:], gw, gh, 4), "grid of the wrong size")
	r.Close()
	assert.ErrorContains(t, r.BGDistanceKept(ctx, grid, gw, gh, 4), "after Close")
	require.NoError(t, e.Close())
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}
