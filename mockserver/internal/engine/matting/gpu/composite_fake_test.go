//go:build linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// fakeSubject is a w×h image with a subject in its upper half.
func fakeSubject(w, h int) (*image.NRGBA, *matting.Matte) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7) | 1
	}
	m := &matting.Matte{Alpha: image.NewAlpha(img.Rect)}
	for y := h / 6; y < h/2; y++ {
		for x := w / 3; x < 2*w/3; x++ {
			m.Alpha.Pix[y*w+x] = 255
		}
	}
	return img, m
}

// TestCompositeLaunchesOnFakeDriver checks each background's launch
// sequence and grids on the fake driver (which computes nothing), and
// that every buffer goes back to the pool.
func TestCompositeLaunchesOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	src := image.NewNRGBA(image.Rect(0, 0, 50, 40))
	green := color.NRGBA{G: 200, A: 255}
	grid := func(n int) uint32 { g, _ := launchConfig(int64(n)); return g }
	cases := []struct {
		w, h  int
		bg    matting.Background
		want  string
		grids []uint32
	}{
		{80, 60, matting.Background{}, "composite_transparent/5", []uint32{grid(4800)}},
		{80, 60, matting.Background{Kind: matting.Color, Color: green}, "composite_color/8", nil},
		{80, 60, matting.Background{Kind: matting.Color, Shadow: matting.ShadowSoft}, "shadow_reduce/10 composite_back/14",
			[]uint32{grid(80 * 60), grid(80 * 60)}}, // blur radius 1 at full resolution
		{40, 30, matting.Background{Kind: matting.Color, Shadow: matting.ShadowSoft}, "composite_back/14", nil}, // a shift
		{80, 60, matting.Background{Kind: matting.Color, Shadow: matting.ShadowHard}, "composite_back/14", nil},
		{80, 60, matting.Background{Kind: matting.Color, Shadow: matting.ShadowFloating}, "subject_scan/5 composite_back/14",
			[]uint32{grid(2 * 60), grid(80 * 60)}}, // two segments per row
		{80, 60, matting.Background{Kind: matting.Color, Shadow: "unknown"}, "composite_color/8", nil},
		{80, 60, matting.Background{Kind: matting.Image, Image: src}, "cover_rows/9 cover_cols/10 composite_back/14", nil},
		{80, 60, matting.Background{Kind: matting.Image, Image: src, Shadow: matting.ShadowSoft},
			"cover_rows/9 cover_cols/10 shadow_reduce/10 composite_back/14", nil},
		{80, 60, matting.Background{Kind: matting.Image, Image: image.NewGray(image.Rect(3, 3, 9, 9)), Shadow: matting.ShadowFloating},
			"cover_rows/9 cover_cols/10 subject_scan/5 composite_back/14", nil},
		{80, 60, matting.Background{Kind: matting.Image, Shadow: matting.ShadowHard}, "composite_back/14", nil}, // no image: the colour
		{80, 60, matting.Background{Kind: matting.Generative, Prompt: "sky", Shadow: matting.ShadowSoft}, // no shadow on generated
			"generate_enlarge/9 composite_back/14", []uint32{grid(4800), grid(4800)}},
	}
	for _, c := range cases {
		img, m := fakeSubject(c.w, c.h)
		for _, m := range []*matting.Matte{m, nil} {
			f.mu.Lock()
			f.launches = nil
			f.mu.Unlock()
			out, err := e.Composite(context.Background(), img, m, c.bg)
			require.NoError(t, err)
			assert.Equal(t, img.Rect, out.Rect)
			f.mu.Lock()
			var names []string
			var grids []uint32
			for _, l := range f.launches {
				names = append(names, fmt.Sprintf("%s/%d", l.name, l.params))
				grids = append(grids, l.grid[0])
				assert.Equal(t, [3]uint32{blockSize, 1, 1}, l.block)
			}
			f.mu.Unlock()
			assert.Equal(t, c.want, strings.Join(names, " "), "%+v", c.bg)
			if c.grids != nil {
				assert.Equal(t, c.grids, grids, "%+v", c.bg)
			}
		}
	}
	require.NoError(t, e.Close(), "no buffer left in use")
	_, live, _, _, _ := f.snapshot()
	assert.Zero(t, live)
}

// TestCompositeDriverErrors fails, one at a time, every allocation, copy,
// launch and synchronisation of composites that take each path: the error
// is the *DriverError of that call, and every buffer goes back to the pool
// (Close checks that none is left in use).
func TestCompositeDriverErrors(t *testing.T) {
	t.Parallel()
	src := image.NewNRGBA(image.Rect(0, 0, 50, 40))
	bgs := []matting.Background{
		{Kind: matting.Image, Image: src, Shadow: matting.ShadowSoft},
		{Kind: matting.Color, Shadow: matting.ShadowFloating},
		{Kind: matting.Generative, Prompt: "forest"},
		{Kind: matting.Color, Shadow: matting.ShadowHard},
	}
	img, m := fakeSubject(80, 60)
	fg := &matting.Matte{Alpha: m.Alpha, Foreground: img}
	for _, bg := range bgs {
		for _, op := range driverOps {
			failures := failEachCall(t, fmt.Sprintf("%+v", bg), op, func() (*fakeDriver, *Engine, func() error, func()) {
				f := newFakeDriver()
				e, err := newEngine(f, Options{})
				require.NoError(t, err)
				work := func() error {
					_, err := e.Composite(context.Background(), img, fg, bg)
					return err
				}
				return f, e, work, nil
			})
			assert.Positive(t, failures, "%+v calls %s", bg, op)
			t.Logf("kind %d, shadow %q: %d calls of %s failed in turn", bg.Kind, bg.Shadow, failures, op)
		}
	}
}
