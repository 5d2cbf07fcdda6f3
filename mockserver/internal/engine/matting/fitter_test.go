package matting

import (
	"context"
	"errors"
	"image"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// fitStages is cpuStages whose runs are BackgroundFitters: FitBackground
// fits with ReferenceFitBackground on the run's planes, or fails, or
// drops the residuals, as set.
type fitStages struct {
	cpuStages
	fail   error // returned by FitBackground when set
	noRes  bool  // FitBackground leaves the residuals out
	calls  *int
	wanted *int // calls asking for the residuals
}

func (s fitStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &fitRun{cpuRun: s.newRun(img), s: s}, nil
}

type fitRun struct {
	*cpuRun
	s fitStages
}

func (r *fitRun) FitBackground(_ context.Context, in *FitInput) (*BackgroundFit, error) {
	*r.s.calls++
	if in.Residuals {
		*r.s.wanted++
	}
	if r.s.fail != nil {
		return nil, r.s.fail
	}
	fit := ReferenceFitBackground(r.a.w, r.a.h, r.a.lin, r.a.lab, in)
	if r.s.noRes {
		fit.Residuals = nil
	}
	return fit, nil
}

// TestAcceleratedBackgroundFitter checks that the pipeline fits the
// background model through a BackgroundFitter (the same bytes): twice in
// general mode, once in the portrait fallback (which alone wants the
// residuals), never with a face box; and that the device's errors, or a
// fit without the residuals asked for, fail the removal.
func TestAcceleratedBackgroundFitter(t *testing.T) {
	t.Parallel()
	stageGolden(t, func(o Options) (Stages, func(*testing.T)) {
		calls, wanted := 0, 0
		return fitStages{calls: &calls, wanted: &wanted}, func(t *testing.T) {
			switch {
			case o.Mode != ModePortrait:
				assert.Equal(t, [2]int{2, 0}, [2]int{calls, wanted}, "border and whole frame")
			case len(o.Faces) == 0:
				assert.Equal(t, [2]int{1, 1}, [2]int{calls, wanted}, "the portrait fallback's border")
			default:
				assert.Zero(t, calls, "no fit with a face")
			}
		}
	})
	img, _ := synth.Product(1, 160, 120, synth.Plain)
	boom := errors.New("device lost")
	for _, s := range []fitStages{{fail: boom}, {noRes: true}} {
		calls, wanted := 0, 0
		runs := 0
		s.cpuStages.runs, s.calls, s.wanted = &runs, &calls, &wanted
		o := Options{}
		if s.noRes {
			o.Mode = ModePortrait // the fallback wants the residuals
		}
		_, err := NewAccelerated(s).RemoveBackground(context.Background(), img, o)
		require.Error(t, err)
		if s.fail != nil {
			require.ErrorIs(t, err, boom)
		}
		assert.Equal(t, 1, calls, "no device fit after its error")
		assert.Equal(t, 1, runs)
	}
}

// TestReferenceFitBackgroundNaN checks that a NaN in the planes (which no
// image gives) makes a NaN model instead of a panic in the colour tables'
// lookup.
func TestReferenceFitBackgroundNaN(t *testing.T) {
	t.Parallel()
	assert.True(t, math.IsNaN(float64(lookup(&cbrtLUT, float32(math.NaN())))))
	const w, h = 8, 6
	lin, lab := make([]float32, 3*w*h), make([]float32, 3*w*h)
	for i := range lin {
		lin[i], lab[i] = 0.5, 50
	}
	lab[3*10] = float32(math.NaN())
	in := &FitInput{Samples: []int32{1, 10, 20, 30}, Residuals: true}
	var fit *BackgroundFit
	require.NotPanics(t, func() { fit = ReferenceFitBackground(w, h, lin, lab, in) })
	assert.True(t, math.IsNaN(fit.Coef[0][0]))
	assert.Len(t, fit.Residuals, 4)
}
