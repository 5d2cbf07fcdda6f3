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

// fieldStages is cpuStages whose runs are FieldEvaluators: FieldGrid and
// FieldThreshold compute the references on the run's planes, or fail, or
// return a grid of the wrong size, as set.
type fieldStages struct {
	cpuStages
	failGrid, failThreshold error
	shortGrid               bool
	calls                   *[2]int // FieldGrid, FieldThreshold
}

func (s fieldStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &fieldRun{cpuRun: s.newRun(img), s: s}, nil
}

type fieldRun struct {
	*cpuRun
	s fieldStages
}

func (r *fieldRun) FieldGrid(_ context.Context, f *Field, step int) ([]float32, int, int, error) {
	r.s.calls[0]++
	if r.s.failGrid != nil {
		return nil, 0, 0, r.s.failGrid
	}
	grid, gw, gh := ReferenceFieldGrid(r.a.w, r.a.h, f, step)
	if r.s.shortGrid {
		grid = grid[3:]
	}
	return grid, gw, gh, nil
}

func (r *fieldRun) FieldThreshold(_ context.Context, f *Field, use []bool) (float32, error) {
	r.s.calls[1]++
	if r.s.failThreshold != nil {
		return 0, r.s.failThreshold
	}
	return ReferenceFieldThreshold(r.a.w, r.a.h, r.a.lab, f, use), nil
}

// TestAcceleratedFieldEvaluator checks that the pipeline gets the fields'
// grids and the rounds' thresholds from a FieldEvaluator (the same bytes;
// general mode's model threshold and one grid per round, none with a face
// box), and that the device's errors, or a grid of the wrong size, fail
// the removal.
func TestAcceleratedFieldEvaluator(t *testing.T) {
	t.Parallel()
	stageGolden(t, func(o Options) (Stages, func(*testing.T)) {
		var calls [2]int
		return fieldStages{calls: &calls}, func(t *testing.T) {
			switch {
			case o.Mode != ModePortrait:
				assert.GreaterOrEqual(t, calls[0], 1, "a grid per round")
				assert.Equal(t, calls[0], calls[1], "the model's threshold, then one per plate")
			case len(o.Faces) == 0:
				assert.GreaterOrEqual(t, calls[0], 1)
				assert.Equal(t, calls[0]-1, calls[1], "the fallback's threshold is the border fit's")
			default:
				assert.Zero(t, calls, "no field with a face")
			}
		}
	})
	img, _ := synth.Product(1, 160, 120, synth.Plain)
	boom := errors.New("device lost")
	// general mode asks for the model's threshold, then the first grid
	for _, c := range []struct {
		s    fieldStages
		want [2]int
	}{{fieldStages{failGrid: boom}, [2]int{1, 1}}, {fieldStages{failThreshold: boom}, [2]int{0, 1}}, {fieldStages{shortGrid: true}, [2]int{1, 1}}} {
		s := c.s
		var calls [2]int
		runs := 0
		s.cpuStages.runs, s.calls = &runs, &calls
		_, err := NewAccelerated(s).RemoveBackground(context.Background(), img, Options{})
		require.Error(t, err)
		if !s.shortGrid {
			require.ErrorIs(t, err, boom)
		}
		assert.Equal(t, c.want, calls, "no device call after its error")
		assert.Equal(t, 1, runs)
	}
}
