package matting

import (
	"context"
	"errors"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// cpuStages is a Stages "device" made of the CPU's own stages, reached only
// through the Stages interface and its flattened inputs: the accelerated
// pipeline on it must give the CPU engine's bytes.
type cpuStages struct {
	failDistance error // returned by BGDistance when set
	runs         *int  // counts closed runs
}

func (s cpuStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return s.newRun(img), nil
}

// newRun is Begin's run, for the doubles that wrap it.
func (s cpuStages) newRun(img *image.NRGBA) *cpuRun { return &cpuRun{img: img, s: s} }

// acceleratedGolden runs every golden case, in parallel, through
// NewAccelerated on the stages that setup returns for the case's options
// and checks the CPU engine's bytes (computed once per case); then it
// calls the check that setup returned (for the stages' calls).
//
// Under the race detector (about twenty times slower), whose subject is
// the goroutines of both pipelines, it runs on stageCases: the same three
// modes at 320×240. The golden cases themselves go through both pipelines
// without it (go test, and .ci/run's heavy step).
func acceleratedGolden(t *testing.T, setup func(o Options) (Stages, func(t *testing.T))) {
	t.Helper()
	cases := goldenCases
	if raceEnabled && !heavyTests {
		cases = stageCases
	}
	acceleratedCases(t, cases, setup)
}

// stageCases are the scenes of the per-stage parity tests (stageGolden)
// in a plain go test: the three golden scenes that take their own paths
// (general mode with preprocessing and spill reduction, portrait mode with
// a face box and without one, which is the border fit's fallback) at
// 320×240 instead of 640×480. Each stage test asserts its stage's calls in
// each of those modes and the CPU engine's bytes through the stage; the
// size is not its subject (a quarter of the pixels: the stages are called
// as at 640×480, and the package's statement coverage is the same). The
// golden scenes themselves, at their sizes, go through the accelerated
// pipeline in TestAcceleratedMatchesCPU, and through each stage test under
// the build tag heavy.
var stageCases = []*goldenCase{
	smallerGolden("product_gradient_spill_pre"),
	smallerGolden("portrait_face_spill"),
	smallerGolden("portrait_noface"),
}

// smallerGolden is the golden case name (its scene and options) at
// 320×240.
func smallerGolden(name string) *goldenCase {
	for _, c := range goldenCases {
		if c.name == name {
			return &goldenCase{name: "small_" + name, w: 320, h: 240, gen: c.gen, o: c.o}
		}
	}
	panic("no golden case " + name)
}

// stageGolden is acceleratedGolden for a test of one swapped stage: on
// stageCases, and under the build tag heavy (.ci/run's heavy step) on
// every golden case too. Under the race detector (about twenty times
// slower) the point is the stage's goroutines, which one scene exercises:
// there it runs on the general mode's scene only, and the parity on every
// scene is checked without it (go test, and the heavy step).
func stageGolden(t *testing.T, setup func(o Options) (Stages, func(t *testing.T))) {
	t.Helper()
	cases := stageCases
	switch {
	case heavyTests:
		cases = append(append([]*goldenCase(nil), goldenCases...), stageCases...)
	case raceEnabled:
		cases = stageCases[:1]
	}
	acceleratedCases(t, cases, setup)
}

func acceleratedCases(t *testing.T, cases []*goldenCase, setup func(o Options) (Stages, func(t *testing.T))) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			img, o := c.input()
			want, err := c.cpuMatte()
			require.NoError(t, err)
			s, check := setup(o)
			got, err := c.accelerated(s, img, o)
			require.NoError(t, err)
			assert.Equal(t, want.Alpha.Rect, got.Alpha.Rect)
			assert.Equal(t, goldenHash(want), goldenHash(got))
			check(t)
		})
	}
}

type cpuRun struct {
	img *image.NRGBA
	a   *analysis
	s   cpuStages
}

func (r *cpuRun) Analyse(_ context.Context, f int, pre bool) (*Planes, error) {
	r.a = newAnalysis(r.img, f, pre)
	return &Planes{W: r.a.w, H: r.a.h, SRGB: r.a.srgb, Raw: r.a.raw, Lin: r.a.lin, Lab: r.a.lab}, nil
}

func (r *cpuRun) BGDistance(_ context.Context, grid []float32, gw, gh, step int) ([]float32, []float32, []bool, error) {
	if r.s.failDistance != nil {
		return nil, nil, nil, r.s.failDistance
	}
	if step != fieldStep {
		return nil, nil, nil, errors.New("unexpected step")
	}
	d, p, sh := bgDistanceCPU(&analysis{w: r.a.w, h: r.a.h, lab: r.a.lab}, grid, gw, gh)
	return d, p, sh, nil
}

func (r *cpuRun) Refine(_ context.Context, in *RefineInput) (*image.Alpha, *image.NRGBA, error) {
	a := &analysis{w: in.W, h: in.H, factor: in.Factor}
	mask := make([]bool, len(in.Mask))
	p := &refinePlan{band: make([]bool, len(in.Band)), index: in.Index, stats: make([]cellStats, len(in.Stats)/StatsStride)}
	for i := range in.Mask {
		mask[i] = in.Mask[i] == 1
		p.band[i] = in.Band[i] == 1
		if p.band[i] {
			p.bandCells = append(p.bandCells, int32(i))
		}
	}
	for i := range p.stats {
		o := in.Stats[StatsStride*i:]
		s := &p.stats[i]
		copy(s.f[:], o[0:3])
		copy(s.b[:], o[3:6])
		s.varF, s.varB = o[6], o[7]
	}
	res := refinePixels(r.img, a, mask, p, in.Spill, false)
	return res.alpha, res.fg, nil
}

func (r *cpuRun) Close() {
	if r.s.runs != nil {
		*r.s.runs++
	}
}

func TestAcceleratedMatchesCPU(t *testing.T) {
	t.Parallel()
	acceleratedGolden(t, func(Options) (Stages, func(*testing.T)) {
		runs := 0
		return cpuStages{runs: &runs}, func(t *testing.T) { assert.Equal(t, 1, runs, "the run is closed once") }
	})
}

func TestAcceleratedDeviceError(t *testing.T) {
	t.Parallel()
	img, _ := synth.Product(1, 160, 120, synth.Plain)
	boom := errors.New("device lost")
	runs := 0
	_, err := NewAccelerated(cpuStages{failDistance: boom, runs: &runs}).RemoveBackground(context.Background(), img, Options{})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 1, runs)
}

func TestCompositeWith(t *testing.T) {
	t.Parallel()
	img, truth := synth.Product(1, 64, 48, synth.Plain)
	m := &Matte{Alpha: truth}
	got, err := CompositeWith(context.Background(), NewCPU(), img, m, Background{})
	require.NoError(t, err)
	assert.Equal(t, Composite(img, m, Background{}).Pix, got.Pix)
}

func TestColourTables(t *testing.T) {
	t.Parallel()
	lin, cbrt := ColourTables()
	require.Len(t, lin, LUTSize+2)
	require.Len(t, cbrt, LUTSize+2)
	assert.Equal(t, linLUT[100], lin[100])
	lin[100] = -1
	assert.NotEqual(t, float32(-1), linLUT[100], "a copy")
}

func TestCompositeTables(t *testing.T) {
	t.Parallel()
	gamma, srgb8 := CompositeTables()
	require.Len(t, gamma, LUTSize+2)
	require.Len(t, srgb8, 256)
	assert.Equal(t, gammaLUT[100], gamma[100])
	assert.Equal(t, srgb8ToLinear[200], srgb8[200])
	gamma[100], srgb8[200] = -1, -1
	assert.NotEqual(t, float32(-1), gammaLUT[100], "a copy")
	assert.NotEqual(t, float32(-1), srgb8ToLinear[200], "a copy")
}

// planStages is cpuStages whose runs are RefinePlanners: PlanRefine plans
// on the CPU from the radii it is given and refines, or fails, as set.
type planStages struct {
	cpuStages
	fail     error // returned by PlanRefine when set
	noImages bool  // PlanRefine returns no images
	calls    *[2]int
}

func (s planStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &planRun{cpuRun: s.newRun(img), s: s}, nil
}

type planRun struct {
	*cpuRun
	s planStages
}

func (r *planRun) PlanRefine(_ context.Context, in *RefinePlanInput) (*image.Alpha, *image.NRGBA, error) {
	r.s.calls[0]++
	if r.s.fail != nil {
		return nil, nil, r.s.fail
	}
	if r.s.noImages {
		return nil, nil, nil
	}
	p := planRefineRadii(r.a, in.Mask, in.BandRadius, in.StatsRadius)
	res := refinePixels(r.img, r.a, in.Mask, p, in.Spill, false)
	return res.alpha, res.fg, nil
}

func (r *planRun) Refine(ctx context.Context, in *RefineInput) (*image.Alpha, *image.NRGBA, error) {
	r.s.calls[1]++
	return r.cpuRun.Refine(ctx, in)
}

// TestAcceleratedRefinePlanner checks that the pipeline plans the
// refinement through a RefinePlanner with RefineRadii's radii instead of
// calling Refine (the same bytes), and that the device's errors, or a
// result without its images, fail the removal.
func TestAcceleratedRefinePlanner(t *testing.T) {
	t.Parallel()
	stageGolden(t, func(Options) (Stages, func(*testing.T)) {
		var calls [2]int
		runs := 0
		return planStages{cpuStages: cpuStages{runs: &runs}, calls: &calls}, func(t *testing.T) {
			assert.Equal(t, 1, runs)
			assert.Equal(t, [2]int{1, 0}, calls, "PlanRefine once, no Refine")
		}
	})
	img, _ := synth.Product(1, 160, 120, synth.Plain)
	boom := errors.New("device lost")
	for _, s := range []planStages{{fail: boom}, {noImages: true}} {
		var calls [2]int
		runs := 0
		s.cpuStages.runs, s.calls = &runs, &calls
		_, err := NewAccelerated(s).RemoveBackground(context.Background(), img, Options{})
		require.Error(t, err)
		if s.fail != nil {
			require.ErrorIs(t, err, boom)
		}
		assert.Equal(t, [2]int{1, 0}, calls, "no Refine after a device error")
		assert.Equal(t, 1, runs)
	}
}
