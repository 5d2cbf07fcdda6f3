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

// fullStages is cpuStages whose runs run every stage of general mode by
// matting's references and are PlaneKeepers: the pipeline's own analysis
// then has no planes, so any CPU stage reading them would panic. fail
// names a stage that fails.
type fullStages struct {
	cpuStages
	fail  string
	calls *int // AnalyseKept
}

var errFull = errors.New("device lost")

func (s fullStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &fullRun{keeperRun: &keeperRun{cpuRun: s.newRun(img), s: keeperStages{calls: new([3]int)}}, s: s}, nil
}

type fullRun struct {
	*keeperRun
	s fullStages
}

func (r *fullRun) failing(stage string) error {
	if r.s.fail == stage {
		return errFull
	}
	return nil
}

func (r *fullRun) AnalyseKept(ctx context.Context, f int, pre bool) (int, int, error) {
	*r.s.calls++
	if err := r.failing("analyse"); err != nil {
		return 0, 0, err
	}
	p, err := r.Analyse(ctx, f, pre)
	if err != nil {
		return 0, 0, err
	}
	return p.W, p.H, nil
}

func (r *fullRun) FitBackground(_ context.Context, in *FitInput) (*BackgroundFit, error) {
	if err := r.failing("fit"); err != nil {
		return nil, err
	}
	return ReferenceFitBackground(r.a.w, r.a.h, r.a.lin, r.a.lab, in), nil
}

func (r *fullRun) FieldGrid(_ context.Context, f *Field, step int) ([]float32, int, int, error) {
	if err := r.failing("grid"); err != nil {
		return nil, 0, 0, err
	}
	g, gw, gh := ReferenceFieldGrid(r.a.w, r.a.h, f, step)
	return g, gw, gh, nil
}

func (r *fullRun) FieldThreshold(_ context.Context, f *Field, use []bool) (float32, error) {
	if err := r.failing("threshold"); err != nil {
		return 0, err
	}
	return ReferenceFieldThreshold(r.a.w, r.a.h, r.a.lab, f, use), nil
}

func (r *fullRun) BGDistanceKept(ctx context.Context, grid []float32, gw, gh, step int) error {
	if err := r.failing("distance"); err != nil {
		return err
	}
	return r.keeperRun.BGDistanceKept(ctx, grid, gw, gh, step)
}

func (r *fullRun) Classify(ctx context.Context, dist, plain []float32, t float32) ([]bool, error) {
	if err := r.failing("classify"); err != nil {
		return nil, err
	}
	return r.keeperRun.Classify(ctx, dist, plain, t)
}

func (r *fullRun) SamplePlate(ctx context.Context, in *PlateInput) (*PlateSamples, error) {
	if err := r.failing("plate"); err != nil {
		return nil, err
	}
	return r.keeperRun.SamplePlate(ctx, in)
}

func (r *fullRun) PlanRefine(_ context.Context, in *RefinePlanInput) (*image.Alpha, *image.NRGBA, error) {
	if err := r.failing("plan"); err != nil {
		return nil, nil, err
	}
	p := planRefineRadii(r.a, in.Mask, in.BandRadius, in.StatsRadius)
	res := refinePixels(r.img, r.a, in.Mask, p, in.Spill, false)
	return res.alpha, res.fg, nil
}

// TestAcceleratedPlaneKeeper checks that general mode on a PlaneKeeper
// analyses with AnalyseKept and runs no CPU stage on the planes (the
// pipeline's analysis has none): the CPU's bytes; portrait mode analyses
// with Analyse; a device error at any stage fails the removal with that
// error and no panic.
func TestAcceleratedPlaneKeeper(t *testing.T) {
	t.Parallel()
	stageGolden(t, func(o Options) (Stages, func(*testing.T)) {
		calls := 0
		return fullStages{calls: &calls}, func(t *testing.T) {
			if o.Mode == ModePortrait {
				assert.Zero(t, calls, "portrait mode reads the planes")
			} else {
				assert.Equal(t, 1, calls)
			}
		}
	})
	img, _ := synth.Product(1, 160, 120, synth.Gradient)
	for _, stage := range []string{"analyse", "fit", "grid", "threshold", "distance", "classify", "plate", "plan"} {
		runs, calls := 0, 0
		s := fullStages{cpuStages: cpuStages{runs: &runs}, fail: stage, calls: &calls}
		var err error
		require.NotPanics(t, func() { _, err = NewAccelerated(s).RemoveBackground(context.Background(), img, Options{}) }, stage)
		require.ErrorIs(t, err, errFull, stage)
		assert.Equal(t, 1, runs, stage)
	}
}
