//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// recStages is the engine's stages with every Classify call's input and
// result recorded: the parity set's real analysis planes.
type recStages struct {
	inner stages
	mu    sync.Mutex
	calls []recCall
}

type recCall struct {
	f    field
	mask []bool
}

type recRun struct {
	*tappedRun
	rec         *recStages
	lab         []float32
	dist, plain []float32 // the last BGDistanceKept's, for the record
}

func (s *recStages) Begin(ctx context.Context, img *image.NRGBA) (matting.StageRun, error) {
	r, err := s.inner.Begin(ctx, img)
	if err != nil {
		return nil, err
	}
	rr := &recRun{rec: s}
	rr.tappedRun = &tappedRun{run: r.(*run), onPlanes: func(p *matting.Planes) { rr.lab = append([]float32(nil), p.Lab...) }}
	return rr, nil
}

// tappedRun is a run that hands its analysis planes to onPlanes, from
// Analyse or from AnalyseKept (fetched from the device then): the parity
// recorders' view of the planes the steps read.
type tappedRun struct {
	*run
	onPlanes func(*matting.Planes)
}

func (r *tappedRun) Analyse(ctx context.Context, f int, preprocess bool) (*matting.Planes, error) {
	p, err := r.run.Analyse(ctx, f, preprocess)
	if err == nil {
		r.onPlanes(p)
	}
	return p, err
}

func (r *tappedRun) AnalyseKept(ctx context.Context, f int, preprocess bool) (int, int, error) {
	if _, _, err := r.run.AnalyseKept(ctx, f, preprocess); err != nil {
		return 0, 0, err
	}
	if err := r.hostPlanes(ctx); err != nil {
		return 0, 0, err
	}
	err := r.d.do(ctx, func(wk *worker) error {
		_, err := r.hostRawPlane(wk)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	r.onPlanes(&matting.Planes{W: r.w, H: r.h, Raw: r.hostRaw, Lin: r.hostLin, Lab: r.hostLab})
	return r.w, r.h, nil
}

// BGDistanceKept records the distances (from BGDistance on the same
// grid) and keeps them on the device, as the pipeline asks.
func (r *recRun) BGDistanceKept(ctx context.Context, grid []float32, gw, gh, step int) error {
	d, p, _, err := r.run.BGDistance(ctx, grid, gw, gh, step)
	if err != nil {
		return err
	}
	r.dist, r.plain = append([]float32(nil), d...), append([]float32(nil), p...)
	return r.run.BGDistanceKept(ctx, grid, gw, gh, step)
}

func (r *recRun) Classify(ctx context.Context, dist, plain []float32, t float32) ([]bool, error) {
	m, err := r.run.Classify(ctx, dist, plain, t)
	if dist == nil {
		dist, plain = r.dist, r.plain // kept on the device
	}
	if err == nil {
		r.rec.mu.Lock()
		r.rec.calls = append(r.rec.calls, recCall{
			f:    field{w: r.w, h: r.h, lab: r.lab, dist: append([]float32(nil), dist...), plain: append([]float32(nil), plain...), t: t},
			mask: append([]bool(nil), m...),
		})
		r.rec.mu.Unlock()
	}
	return m, err
}

// TestEmulatedClassifyParity runs the parity set through the engine on
// the emulator with its Classify calls recorded: the mattes equal the CPU
// engine's (|Δ| 0), every recorded mask equals matting's classify on the
// same planes, and on each of those planes every step of the clean-up
// (components with their summaries, keepComponents, fillSlits, fillHoles,
// the smoothing, the flood) equals the CPU's.
func TestEmulatedClassifyParity(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	rec := &recStages{inner: stages{e.dev}}
	remover := matting.NewAccelerated(rec)
	ctx := context.Background()
	for _, c := range parityCases() {
		want, err := cpuMatte(c)
		require.NoError(t, err)
		got, err := remover.RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err)
		assertSameMatte(t, c.name, want, got)
	}
	require.NotEmpty(t, rec.calls)
	pixels := 0
	for i, call := range rec.calls {
		f := call.f
		name := fmt.Sprintf("call %d (%dx%d, t %g)", i, f.w, f.h, f.t)
		require.Equal(t, matting.ReferenceClassify(f.w, f.h, f.lab, f.dist, f.plain, f.t), call.mask, name)
		compareSnaps(t, name, devSteps(t, e, f), cpuSteps(f))
		pixels += f.w * f.h
	}
	t.Logf("%d classification rounds of the parity set (%d analysis pixels) identical to the CPU, step by step", len(rec.calls), pixels)
}

// TestClassifyOnStubDriver runs the clean-up step by step through the
// libcuda binding on the stub driver (each kernel's parameters read from
// cuLaunchKernel's array), on random fields of every kind at three sizes
// and on whole Classify calls of removals, against the CPU.
func TestClassifyOnStubDriver(t *testing.T) {
	t.Parallel()
	path := stubLibrary(t)
	drv, err := openDriverAt(path)
	require.NoError(t, err)
	e, err := newEngine(drv, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	cases := 0
	for _, sz := range [][2]int{{1, 29}, {23, 17}, {120, 90}} {
		for _, kind := range maskKinds {
			f := genField(kind, sz[0], sz[1], 3)
			compareSnaps(t, fmt.Sprintf("%s %dx%d", kind, f.w, f.h), devSteps(t, e, f), cpuSteps(f))
			cases++
		}
	}
	rec := &recStages{inner: stages{e.dev}}
	for _, c := range parityCases()[:4] {
		_, err := matting.NewAccelerated(rec).RemoveBackground(context.Background(), c.img, c.o)
		require.NoError(t, err)
	}
	for i, call := range rec.calls {
		f := call.f
		require.Equal(t, matting.ReferenceClassify(f.w, f.h, f.lab, f.dist, f.plain, f.t), call.mask, "call %d", i)
	}
	t.Logf("%d fields step by step and %d Classify calls identical to the CPU", cases, len(rec.calls))
}
