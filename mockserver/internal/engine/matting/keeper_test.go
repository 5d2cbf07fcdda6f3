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

// keeperStages is cpuStages whose runs are DistanceKeepers, Classifiers
// and PlateSamplers: BGDistanceKept computes the distances on the CPU and
// keeps them, Classify and SamplePlate read the kept ones when handed nil
// (and record whether they were), or the calls fail, as set.
type keeperStages struct {
	cpuStages
	failKeep, failClassify, failPlate error
	calls                             *[3]int // BGDistanceKept, Classify with nil, SamplePlate with nil
}

func (s keeperStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &keeperRun{cpuRun: s.newRun(img), s: s}, nil
}

type keeperRun struct {
	*cpuRun
	s           keeperStages
	dist, plain []float32
	shadowed    []bool
}

func (r *keeperRun) BGDistanceKept(_ context.Context, grid []float32, gw, gh, step int) error {
	r.s.calls[0]++
	if r.s.failKeep != nil {
		return r.s.failKeep
	}
	if step != fieldStep {
		return errors.New("unexpected step")
	}
	r.dist, r.plain, r.shadowed = bgDistanceCPU(r.a, grid, gw, gh)
	return nil
}

func (r *keeperRun) Classify(_ context.Context, dist, plain []float32, t float32) ([]bool, error) {
	if dist == nil && plain == nil {
		r.s.calls[1]++
		dist, plain = r.dist, r.plain
	}
	if r.s.failClassify != nil {
		return nil, r.s.failClassify
	}
	return ReferenceClassify(r.a.w, r.a.h, r.a.lab, dist, plain, t), nil
}

func (r *keeperRun) SamplePlate(_ context.Context, in *PlateInput) (*PlateSamples, error) {
	if in.Dist == nil && in.Shadowed == nil {
		r.s.calls[2]++
		c := *in
		c.Dist, c.Shadowed = r.dist, r.shadowed
		in = &c
	}
	if r.s.failPlate != nil {
		return nil, r.s.failPlate
	}
	return ReferenceSamplePlate(r.a.w, r.a.h, r.a.lin, in), nil
}

// TestAcceleratedDistanceKeeper checks that general mode keeps the rounds'
// distances on a DistanceKeeper (Classify and SamplePlate handed nil, the
// CPU's bytes), and that a device error at any of the three fails the
// removal with no CPU stage left to read the distances the host never
// had.
func TestAcceleratedDistanceKeeper(t *testing.T) {
	t.Parallel()
	stageGolden(t, func(o Options) (Stages, func(*testing.T)) {
		var calls [3]int
		return keeperStages{calls: &calls}, func(t *testing.T) {
			if o.Mode == ModePortrait && len(o.Faces) > 0 {
				assert.Zero(t, calls, "no rounds with a face")
				return
			}
			assert.Positive(t, calls[0])
			assert.Equal(t, calls[0], calls[1], "every Classify reads the kept distances")
			assert.GreaterOrEqual(t, calls[2], calls[0]-1, "every SamplePlate too")
		}
	})
	img, _ := synth.Product(1, 160, 120, synth.Plain)
	boom := errors.New("device lost")
	for _, s := range []keeperStages{{failKeep: boom}, {failClassify: boom}, {failPlate: boom}} {
		var calls [3]int
		runs := 0
		s.cpuStages.runs, s.calls = &runs, &calls
		_, err := NewAccelerated(s).RemoveBackground(context.Background(), img, Options{})
		require.ErrorIs(t, err, boom)
		assert.Equal(t, 1, calls[0], "one round only")
		assert.Equal(t, 1, runs)
	}
}
