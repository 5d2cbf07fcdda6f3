package matting

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// compositeStages is cpuStages whose runs are RunCompositors (CompositeRun
// is Composite of the run's own image), unless declined; the stages are a
// Compositor when compositor is set. The calls are counted.
type compositeStages struct {
	cpuStages
	decline bool    // CompositeRun returns nil: the caller composites
	fail    error   // returned by CompositeRun when set
	calls   *[2]int // CompositeRun, the stages' Composite
}

func (s compositeStages) Begin(_ context.Context, img *image.NRGBA) (StageRun, error) {
	return &compositeRun{cpuRun: s.newRun(img), s: s}, nil
}

type compositeRun struct {
	*cpuRun
	s compositeStages
}

func (r *compositeRun) CompositeRun(_ context.Context, m *Matte, bg Background) (*image.NRGBA, error) {
	r.s.calls[0]++
	if r.s.fail != nil || r.s.decline {
		return nil, r.s.fail
	}
	return Composite(r.img, m, bg), nil
}

// compositorStages are compositeStages that are also a Compositor.
type compositorStages struct{ compositeStages }

func (s compositorStages) Composite(_ context.Context, fg *image.NRGBA, m *Matte, bg Background) (*image.NRGBA, error) {
	s.calls[1]++
	return Composite(fg, m, bg), nil
}

// TestRemoveAndComposite checks RemoveAndComposite against RemoveBackground
// and Composite on the CPU, for the CPU engine and the accelerated
// pipeline whose run composites, declines (then the stages' Composite or
// the package's), or fails; with an image whose origin is not (0, 0) the
// composite has its rectangle.
func TestRemoveAndComposite(t *testing.T) {
	t.Parallel()
	img, _ := synth.Product(2, 120, 90, synth.Gradient)
	shifted := &image.NRGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect.Add(image.Pt(7, -3))}
	ctx := context.Background()
	bgs := []Background{{}, {Kind: Color, Color: color.NRGBA{R: 200, G: 10, B: 90}, Shadow: ShadowSoft}}
	for _, in := range []*image.NRGBA{img, shifted} {
		for _, o := range sceneSubset([]Options{{}, {SpillReduction: true}}, 1) {
			want, err := NewCPU().RemoveBackground(ctx, in, o)
			require.NoError(t, err)
			for _, bg := range bgs {
				wantOut := Composite(in, want, bg)
				check := func(name string, r Remover, calls *[2]int, wantCalls [2]int) {
					t.Helper()
					m, out, err := RemoveAndComposite(ctx, r, in, o, bg)
					require.NoError(t, err, name)
					assert.Equal(t, goldenHash(want), goldenHash(m), name)
					assert.Equal(t, in.Rect, out.Rect, name)
					assert.Equal(t, wantOut.Pix, out.Pix, name)
					if calls != nil {
						assert.Equal(t, wantCalls, *calls, name)
					}
				}
				check("cpu", NewCPU(), nil, [2]int{})
				check("no compositor", NewAccelerated(cpuStages{}), nil, [2]int{})
				var calls [2]int
				check("run", NewAccelerated(compositeStages{calls: &calls}), &calls, [2]int{1, 0})
				calls = [2]int{}
				check("declined", NewAccelerated(compositeStages{decline: true, calls: &calls}), &calls, [2]int{1, 0})
				calls = [2]int{}
				check("declined, stages' Composite", NewAccelerated(compositorStages{compositeStages{decline: true, calls: &calls}}), &calls, [2]int{1, 1})
			}
		}
	}
	boom := errors.New("device lost")
	var calls [2]int
	runs := 0
	_, _, err := RemoveAndComposite(ctx, NewAccelerated(compositeStages{cpuStages: cpuStages{runs: &runs}, fail: boom, calls: &calls}), img, Options{}, Background{})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 1, runs, "the run is closed")
}
