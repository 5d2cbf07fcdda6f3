//go:build linux

package gpu

import (
	"context"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// TestEngineOnFakeDriver runs the whole engine on the fake driver, whose
// kernels compute nothing: it checks the Go side's protocol — every
// launch matches its kernel's signature, the stages run in order, every
// buffer goes back to the pool, each worker on its own thread.
func TestEngineOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	assert.Equal(t, "Fake GPU", e.Device())
	img := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	ctx := context.Background()
	for _, o := range []matting.Options{
		{},
		{SpillReduction: true, Preprocess: true},
		{Mode: matting.ModePortrait, Faces: []image.Rectangle{image.Rect(120, 40, 180, 100)}},
		{Mode: matting.ModePortrait},
	} {
		m, err := e.RemoveBackground(ctx, img, o)
		require.NoError(t, err)
		assert.Equal(t, img.Rect, m.Alpha.Rect)
		assert.Equal(t, o.SpillReduction, m.Foreground != nil)
	}
	var names []string
	for _, l := range f.launches {
		names = append(names, l.name)
	}
	// per removal: the analysis, the background model's fits (two in
	// general mode, then the model's threshold; one in the portrait
	// fallback), 1 to 3 background distances from the field's grid, each with
	// the mask clean-up and, but for the third, the clean plate's
	// samples and (when enough) the plate's threshold, in general mode and the portrait fallback (rounds depend on
	// the data), none with a face box, then the refinement's plan (with
	// the image's means when a pooled flag buffer reads set: the fake
	// computes nothing) and the refinement
	round := "(field_grid bgdist " + classifyLaunches() + " (" + plateLaunches + " (" + thresholdLaunches + " )?)?){1,3}"
	refine := planLaunches + "( refine_means)? refine"
	fit := fitLaunches + " "
	first := strings.Repeat(medianLaunches+" ", 3) + fit // from the samples' medians
	general := first + fit + thresholdLaunches + " " + round
	assert.Regexp(t, `^downsample colour `+general+refine+` `+
		`downsample median3 colour `+general+refine+` `+
		`downsample colour `+refine+` `+
		`downsample colour `+first+round+refine+`$`, strings.Join(names, " "))

	f.launches = nil
	m := &matting.Matte{Alpha: image.NewAlpha(img.Rect)}
	_, err = e.Composite(ctx, img, m, matting.Background{})
	require.NoError(t, err)
	_, err = e.Composite(ctx, img, m, matting.Background{Kind: matting.Color, Color: color.NRGBA{R: 9, A: 255}})
	require.NoError(t, err)
	_, err = e.Composite(ctx, img, m, matting.Background{Kind: matting.Color, Shadow: matting.ShadowSoft})
	require.NoError(t, err)
	assert.Equal(t, []fakeLaunch{
		{name: kCompositeTransparent, grid: [3]uint32{235, 1, 1}, block: [3]uint32{blockSize, 1, 1}, params: 5},
		{name: kCompositeColor, grid: [3]uint32{235, 1, 1}, block: [3]uint32{blockSize, 1, 1}, params: 8},
		{name: kShadowReduce, grid: [3]uint32{235, 1, 1}, block: [3]uint32{blockSize, 1, 1}, params: 10},
		{name: kCompositeBack, grid: [3]uint32{235, 1, 1}, block: [3]uint32{blockSize, 1, 1}, params: 14},
	}, f.launches)

	require.NoError(t, e.Close(), "no buffer left in use")
	threads, live, retained, streams, modules := f.snapshot()
	assert.Equal(t, DefaultStreams, threads, "one thread per stream")
	assert.Zero(t, live+retained+streams+modules)
	_, err = e.RemoveBackground(ctx, img, matting.Options{})
	assert.ErrorIs(t, err, ErrClosed)
}

func TestEngineDeviceErrorFailsRemoval(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	f.names[719] = "CUDA_ERROR_LAUNCH_FAILED"
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	f.mu.Lock()
	f.fail["cuLaunchKernel"] = 719
	f.mu.Unlock()
	_, err = e.RemoveBackground(context.Background(), image.NewNRGBA(image.Rect(0, 0, 40, 30)), matting.Options{})
	var de *DriverError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "cuLaunchKernel(downsample)", de.Op)
	assert.Equal(t, "CUDA_ERROR_LAUNCH_FAILED", de.Name)
}

func TestGPUCompositeChoice(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	sub := image.NewNRGBA(image.Rect(0, 0, 8, 3)).SubImage(image.Rect(0, 0, 4, 3)).(*image.NRGBA)
	m := &matting.Matte{Alpha: image.NewAlpha(img.Rect)}
	other := &matting.Matte{Alpha: image.NewAlpha(image.Rect(0, 0, 4, 4))}
	cases := []struct {
		name string
		fg   *image.NRGBA
		m    *matting.Matte
		bg   matting.Background
		kind matting.BackgroundKind
		ok   bool
	}{
		{"transparent", img, m, matting.Background{}, matting.Transparent, true},
		{"no matte", img, nil, matting.Background{}, matting.Transparent, true},
		{"unknown kind", img, m, matting.Background{Kind: 42}, matting.Transparent, true},
		{"colour", img, m, matting.Background{Kind: matting.Color}, matting.Color, true},
		{"colour unknown shadow", img, m, matting.Background{Kind: matting.Color, Shadow: "x"}, matting.Color, true},
		{"colour soft shadow", img, m, matting.Background{Kind: matting.Color, Shadow: matting.ShadowSoft}, matting.Color, true},
		{"image", img, m, matting.Background{Kind: matting.Image, Shadow: matting.ShadowFloating}, matting.Image, true},
		{"generative", img, m, matting.Background{Kind: matting.Generative}, matting.Generative, true},
		{"strided", sub, m, matting.Background{}, 0, false},
		{"matte of another size", img, other, matting.Background{}, 0, false},
		{"empty", image.NewNRGBA(image.Rectangle{}), nil, matting.Background{}, 0, false},
		{"nil", nil, nil, matting.Background{}, 0, false},
	}
	for _, c := range cases {
		kind, ok := gpuComposite(c.fg, c.m, c.bg)
		assert.Equal(t, c.ok, ok, c.name)
		assert.Equal(t, c.kind, kind, c.name)
	}
}
