package matting

import (
	"bytes"
	"context"
	"image"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

func TestRemoveBackgroundErrors(t *testing.T) {
	c := NewCPU()
	ctx := context.Background()
	_, err := c.RemoveBackground(ctx, nil, Options{})
	assert.ErrorIs(t, err, ErrEmptyImage)
	_, err = c.RemoveBackground(ctx, image.NewNRGBA(image.Rect(0, 0, 0, 10)), Options{})
	assert.ErrorIs(t, err, ErrEmptyImage)
	img, _ := synth.Product(1, 64, 48, synth.Plain)
	_, err = c.RemoveBackground(ctx, img, Options{Mode: "cartoon"})
	assert.ErrorIs(t, err, ErrUnknownMode)
	assert.Contains(t, err.Error(), "matting: ")
	// the zero value works too
	var zero CPU
	m, err := zero.RemoveBackground(ctx, img, Options{})
	require.NoError(t, err)
	assert.Equal(t, img.Rect, m.Alpha.Rect)
}

// countdownCtx reports cancellation after a number of Err calls, which
// exercises every cancellation point between stages without timing.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestContextCancellation(t *testing.T) {
	c := NewCPU()
	img, _ := synth.Product(3, 160, 120, synth.Plain)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.RemoveBackground(ctx, img, Options{})
	assert.ErrorIs(t, err, context.Canceled)
	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	_, err = c.RemoveBackground(ctx, img, Options{})
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	pimg, _, face := synth.Portrait(3, 160, 120)
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		o    Options
	}{
		{"general", img, Options{}},
		{"portrait", pimg, Options{Mode: ModePortrait, Faces: []image.Rectangle{face}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stages := 0
			for n := int64(0); n < 50; n++ {
				cc := &countdownCtx{Context: context.Background()}
				cc.left.Store(n)
				m, err := c.RemoveBackground(cc, tc.img, tc.o)
				if err == nil {
					require.NotNil(t, m)
					break
				}
				assert.Equal(t, context.Canceled, err)
				assert.Nil(t, m)
				stages++
			}
			assert.GreaterOrEqual(t, stages, 3, "cancellation checked between stages")
			assert.Less(t, stages, 50)
		})
	}
}

func TestNonZeroOrigin(t *testing.T) {
	img, truth := synth.Product(2, 200, 150, synth.Plain)
	shifted := img.SubImage(image.Rect(10, 20, 190, 140)).(*image.NRGBA)
	m, err := NewCPU().RemoveBackground(context.Background(), shifted, Options{})
	require.NoError(t, err)
	assert.Equal(t, shifted.Rect, m.Alpha.Rect)
	sub := truth.SubImage(shifted.Rect).(*image.Alpha)
	assert.Greater(t, synth.IoU(m.Alpha, sub, iouThreshold), 0.9)
	// Composite honours the bounds too.
	out := Composite(shifted, m, Background{Kind: Transparent})
	assert.Equal(t, shifted.Rect, out.Rect)
	p := image.Pt(100, 100)
	assert.Equal(t, m.Alpha.AlphaAt(p.X, p.Y).A, out.NRGBAAt(p.X, p.Y).A)
}

func withProcs(n int, fn func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	fn()
}

// Output bytes must not depend on the number of goroutines (on smaller
// scenes under the race detector, which checks the same goroutines).
func TestDeterminismAcrossGOMAXPROCS(t *testing.T) {
	w, h := 320, 240
	if raceEnabled {
		w, h = 160, 120
	}
	pimg, _, face := synth.Portrait(4, w, h)
	gimg, _ := productScene(6, w, h, synth.Gradient) // at 320×240 the stage tests' general scene (stageCases)
	cases := []struct {
		img *image.NRGBA
		o   Options
	}{
		{gimg, Options{SpillReduction: true, Preprocess: true}},
		{pimg, Options{Mode: ModePortrait, Faces: []image.Rectangle{face}, SpillReduction: true}},
	}
	bg, _ := synth.Product(9, 97, 61, synth.Gradient)
	for i, tc := range cases {
		var results [2]*Matte
		var comps [2][][]byte
		for k, procs := range []int{1, 2} {
			withProcs(procs, func() {
				m, err := NewCPU().RemoveBackground(context.Background(), tc.img, tc.o)
				require.NoError(t, err)
				results[k] = m
				for _, b := range []Background{
					{Kind: Transparent},
					{Kind: Color, Shadow: ShadowSoft},
					{Kind: Image, Image: bg, Shadow: ShadowFloating},
					{Kind: Generative, Prompt: "a forest at dawn"},
				} {
					comps[k] = append(comps[k], Composite(tc.img, m, b).Pix)
				}
			})
		}
		assert.True(t, bytes.Equal(results[0].Alpha.Pix, results[1].Alpha.Pix), "case %d alpha", i)
		assert.True(t, bytes.Equal(results[0].Foreground.Pix, results[1].Foreground.Pix), "case %d foreground", i)
		for j := range comps[0] {
			assert.True(t, bytes.Equal(comps[0][j], comps[1][j]), "case %d composite %d", i, j)
		}
	}
}

// Repeated calls give identical results, and a CPU is safe for concurrent use.
func TestRepeatableAndConcurrent(t *testing.T) {
	img, _ := synth.Product(5, 200, 150, synth.Gradient)
	c := NewCPU()
	first, err := c.RemoveBackground(context.Background(), img, Options{})
	require.NoError(t, err)
	errs := make(chan error, 3)
	outs := make(chan []byte, 3)
	for i := 0; i < 3; i++ {
		go func() {
			m, err := c.RemoveBackground(context.Background(), img, Options{})
			errs <- err
			if err == nil {
				outs <- m.Alpha.Pix
			} else {
				outs <- nil
			}
		}()
	}
	for i := 0; i < 3; i++ {
		require.NoError(t, <-errs)
		assert.True(t, bytes.Equal(first.Alpha.Pix, <-outs))
	}
}

func TestAnalysisFactor(t *testing.T) {
	assert.Equal(t, 1, analysisFactor(640, 480, defaultAnalysisPixels))
	assert.Equal(t, 3, analysisFactor(4000, 3000, defaultAnalysisPixels))
	assert.Equal(t, 1, analysisFactor(1, 1, 1))
}

func TestTinyAndFlatImages(t *testing.T) {
	c := NewCPU()
	for _, sz := range []image.Point{{1, 1}, {1, 50}, {50, 1}, {2, 2}, {5, 5}, {7, 3}} {
		img := image.NewNRGBA(image.Rect(0, 0, sz.X, sz.Y))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 37)
		}
		for _, o := range []Options{
			{},
			{Mode: ModePortrait, Faces: []image.Rectangle{image.Rect(0, 0, sz.X, sz.Y)}, SpillReduction: true, Preprocess: true},
			{Mode: ModePortrait, Faces: []image.Rectangle{image.Rect(-50, -50, -10, -10)}},
		} {
			m, err := c.RemoveBackground(context.Background(), img, o)
			require.NoError(t, err, "size %v", sz)
			assert.Equal(t, img.Rect, m.Alpha.Rect)
		}
	}
	// A flat backdrop with nothing on it: nothing is foreground.
	flat := image.NewNRGBA(image.Rect(0, 0, 120, 90))
	for i := 0; i < len(flat.Pix); i += 4 {
		flat.Pix[i], flat.Pix[i+1], flat.Pix[i+2], flat.Pix[i+3] = 200, 210, 220, 255
	}
	m, err := c.RemoveBackground(context.Background(), flat, Options{})
	require.NoError(t, err)
	for _, a := range m.Alpha.Pix {
		if a != 0 {
			require.Zero(t, a)
		}
	}
}
