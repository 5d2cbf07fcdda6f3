//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// plateRec is the engine's stages with one removal's analysis planes,
// SamplePlate calls and refinement mask recorded.
type plateRec struct {
	inner  stages
	planes *matting.Planes
	calls  []plateCall
	mask   []uint8 // the refinement's coarse mask (PlanRefine's or Refine's)
}

// plateCall is one recorded SamplePlate: a copy of its input, its result,
// and whether the device read its kept planes (the pipeline handed it the
// slices of the round's BGDistance and Classify).
type plateCall struct {
	c    plateCase
	out  *matting.PlateSamples
	kept bool
}

type plateRecRun struct {
	*tappedRun
	rec      *plateRec
	dist     []float32 // the last BGDistanceKept's, for the record
	shadowed []bool
}

// BGDistanceKept records the distances and shadow flags (from BGDistance
// on the same grid) and keeps them on the device, as the pipeline asks.
func (r *plateRecRun) BGDistanceKept(ctx context.Context, grid []float32, gw, gh, step int) error {
	d, _, sh, err := r.run.BGDistance(ctx, grid, gw, gh, step)
	if err != nil {
		return err
	}
	r.dist, r.shadowed = append([]float32(nil), d...), append([]bool(nil), sh...)
	return r.run.BGDistanceKept(ctx, grid, gw, gh, step)
}

func (s *plateRec) Begin(ctx context.Context, img *image.NRGBA) (matting.StageRun, error) {
	r, err := s.inner.Begin(ctx, img)
	if err != nil {
		return nil, err
	}
	return &plateRecRun{rec: s, tappedRun: &tappedRun{run: r.(*run), onPlanes: func(p *matting.Planes) {
		c := *p
		c.Lin, c.Lab = append([]float32(nil), p.Lin...), append([]float32(nil), p.Lab...)
		s.planes = &c
	}}}, nil
}

func (r *plateRecRun) SamplePlate(ctx context.Context, in *matting.PlateInput) (*matting.PlateSamples, error) {
	keptAll := kept(in.Mask, r.hostMask) && (kept(in.Dist, r.hostDist) && kept(in.Shadowed, r.hostShadowed) ||
		in.Dist == nil && in.Shadowed == nil && r.distKept)
	c := plateCase{w: r.w, h: r.h, lin: r.rec.planes.Lin, in: copied(in)}
	if in.Dist == nil {
		c.in.Dist, c.in.Shadowed = r.dist, r.shadowed // kept on the device
	}
	out, err := r.run.SamplePlate(ctx, in)
	if err == nil {
		cp := *out
		cp.Use, cp.Sums = append([]bool(nil), out.Use...), append([]float64(nil), out.Sums...)
		r.rec.calls = append(r.rec.calls, plateCall{c: c, out: &cp, kept: keptAll})
	}
	return out, err
}

func (r *plateRecRun) Refine(ctx context.Context, in *matting.RefineInput) (*image.Alpha, *image.NRGBA, error) {
	r.rec.mask = append([]uint8(nil), in.Mask...)
	return r.run.Refine(ctx, in)
}

func (r *plateRecRun) PlanRefine(ctx context.Context, in *matting.RefinePlanInput) (*image.Alpha, *image.NRGBA, error) {
	r.rec.mask = make([]uint8, len(in.Mask))
	for i, m := range in.Mask {
		if m {
			r.rec.mask[i] = 1
		}
	}
	return r.run.PlanRefine(ctx, in)
}

// checkPlateCalls compares every recorded SamplePlate with the CPU's,
// whole and step by step on the same inputs (uploaded), on e.
func checkPlateCalls(t *testing.T, e *Engine, name string, rec *plateRec) {
	for i, call := range rec.calls {
		c := call.c
		cname := fmt.Sprintf("%s: call %d (%dx%d, t %g)", name, i, c.w, c.h, c.in.T)
		want := matting.ReferenceSamplePlate(c.w, c.h, c.lin, c.in)
		require.Equal(t, want.Use, call.out.Use, cname)
		require.Equal(t, f64bits(want.Sums), f64bits(call.out.Sums), cname)
		require.Equal(t, want.Count, call.out.Count, cname)
		assert.True(t, call.kept, "%s: the round's planes read on the device", cname)
		comparePlate(t, cname, devPlate(t, e, c), cpuPlate(t, c))
	}
}

// checkGeneralMask compares the removal's coarse mask with general mode's
// on the CPU from the same analysis planes.
func checkGeneralMask(t *testing.T, name string, rec *plateRec) {
	p := rec.planes
	want := matting.ReferenceGeneralMask(p.W, p.H, p.Lin, p.Lab)
	require.Len(t, rec.mask, len(want), name)
	for i, m := range want {
		if (rec.mask[i] == 1) != m {
			require.Failf(t, "coarse mask differs", "%s: pixel (%d,%d)", name, i%p.W, i/p.W)
		}
	}
}

// TestEmulatedPlateParity runs the parity set through the engine on the
// emulator with its SamplePlate calls recorded: the mattes and
// foregrounds equal the CPU engine's (|Δ| 0); general mode's coarse mask
// equals matting's on the same analysis planes; every SamplePlate read the
// round's planes kept on the device and equals matting's on the same
// inputs, whole and step by step (dilation, samples, cell sums).
func TestEmulatedPlateParity(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	calls, general := 0, 0
	for _, c := range parityCases() {
		rec := &plateRec{inner: stages{e.dev}}
		want, err := cpuMatte(c)
		require.NoError(t, err)
		got, err := matting.NewAccelerated(rec).RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err)
		assertSameMatte(t, c.name, want, got)
		if c.o.Mode == "" || c.o.Mode == matting.ModeGeneral {
			checkGeneralMask(t, c.name, rec)
			general++
		}
		checkPlateCalls(t, e, c.name, rec)
		calls += len(rec.calls)
	}
	assert.Positive(t, calls)
	t.Logf("%d SamplePlate calls of the parity set identical to the CPU, step by step; %d general-mode masks identical", calls, general)
}

// TestSamplePlateOnStubDriver runs the clean plate's steps through the
// libcuda binding on the stub driver (each kernel's parameters read from
// cuLaunchKernel's array) on random inputs, and whole removals with their
// SamplePlate calls and coarse masks, against the CPU.
func TestSamplePlateOnStubDriver(t *testing.T) {
	t.Parallel()
	path := stubLibrary(t)
	drv, err := openDriverAt(path)
	require.NoError(t, err)
	e, err := newEngine(drv, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	cases := 0
	for _, sz := range [][2]int{{1, 29}, {23, 17}, {120, 90}} {
		for i, kind := range maskKinds {
			c := genPlateCase(kind, sz[0], sz[1], 3, 1+i%5, 2+i%4)
			comparePlate(t, fmt.Sprintf("%s %dx%d", kind, sz[0], sz[1]), devPlate(t, e, c), cpuPlate(t, c))
			cases++
		}
	}
	calls := 0
	for _, c := range parityCases()[:4] {
		rec := &plateRec{inner: stages{e.dev}}
		_, err := matting.NewAccelerated(rec).RemoveBackground(context.Background(), c.img, c.o)
		require.NoError(t, err)
		checkGeneralMask(t, c.name, rec)
		checkPlateCalls(t, e, c.name, rec)
		calls += len(rec.calls)
	}
	assert.Positive(t, calls)
	t.Logf("%d inputs step by step and %d SamplePlate calls identical to the CPU", cases, calls)
}
