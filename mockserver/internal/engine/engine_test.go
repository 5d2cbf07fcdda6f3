package engine

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
)

var (
	engineOnce sync.Once
	sharedEng  *Engine
	engineErr  error
)

func testEngine(t testing.TB) *Engine {
	t.Helper()
	engineOnce.Do(func() { sharedEng, engineErr = New(Options{}) })
	require.NoError(t, engineErr)
	return sharedEng
}

func astronaut(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("faces/testdata/astronaut.jpg")
	require.NoError(t, err)
	return b
}

// scene renders a deterministic photo-like test image with a warm cast.
func scene(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(40 + 160*x/w)
			n := uint8((x*7 + y*13) % 9)
			img.SetNRGBA(x, y, color.NRGBA{R: min(255, v+40+n), G: v + n, B: v/2 + n, A: 255})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

func process(t testing.TB, src []byte, req Request) (*Result, []byte) {
	t.Helper()
	var out bytes.Buffer
	res, err := testEngine(t).Process(context.Background(), bytes.NewReader(src), req, &out)
	require.NoError(t, err)
	return res, out.Bytes()
}

func TestProcessIsDeterministic(t *testing.T) {
	t.Parallel()
	src := astronaut(t)
	req := Request{Resize: resize.Request{Long: 300}, RemoveGlares: true}
	r1, a := process(t, src, req)
	r2, b := process(t, src, req)
	assert.Equal(t, a, b, "same input and request, same bytes")
	assert.Equal(t, r1, r2)
}

func TestProcessAstronaut(t *testing.T) {
	t.Parallel()
	res, out := process(t, astronaut(t), Request{})
	assert.Equal(t, imageio.FormatJPEG, res.Format, "original format kept")
	assert.Equal(t, 512, res.Width)
	assert.Len(t, res.Faces, 1)
	assert.True(t, res.Corrected)
	assert.Equal(t, "Universal", res.Preset)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, 512, cfg.Width)
	assert.NotEmpty(t, res.Noise)
	assert.Equal(t, "none", res.RedEye)
}

func TestPresetNoneKeepsPixels(t *testing.T) {
	t.Parallel()
	src := scene(120, 80)
	res, out := process(t, encodePNG(t, src), Request{Preset: "none"})
	assert.False(t, res.Corrected)
	got, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	b := src.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if g := color.NRGBAModel.Convert(got.At(x, y)); g != src.NRGBAAt(x, y) {
				require.Equal(t, src.NRGBAAt(x, y), g, "pixel %d,%d", x, y)
			}
		}
	}
}

func TestGroupsDiffer(t *testing.T) {
	t.Parallel()
	src := encodePNG(t, scene(160, 120))
	_, universal := process(t, src, Request{})
	_, pro := process(t, src, Request{Preset: "Pro"})
	_, none := process(t, src, Request{Preset: "none"})
	assert.NotEqual(t, universal, pro)
	assert.NotEqual(t, universal, none)
}

func TestUnknownPresetIsRejected(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	_, err := testEngine(t).Process(context.Background(), bytes.NewReader(encodePNG(t, scene(64, 64))), Request{Preset: "Nope"}, &out)
	assert.ErrorIs(t, err, ErrUnknownPreset)
	assert.ErrorIs(t, err, ErrRejected)
}

func TestCustomPreset(t *testing.T) {
	t.Parallel()
	src := encodePNG(t, scene(160, 120))
	presets := func(name string) ([]byte, bool) {
		if name == "Punchy" {
			return []byte("group = Universal\ncontrast = 0.6\nvibrance = 0.8\n"), true
		}
		return nil, false
	}
	res, custom := process(t, src, Request{Preset: "Punchy", CustomPresets: presets})
	assert.Equal(t, "Punchy", res.Preset)
	_, universal := process(t, src, Request{})
	assert.NotEqual(t, universal, custom)
}

func TestResizePriorityAndFormat(t *testing.T) {
	t.Parallel()
	res, out := process(t, astronaut(t), Request{OutputType: "png", Resize: resize.Request{Width: 100, Long: 400}})
	assert.Equal(t, imageio.FormatPNG, res.Format)
	assert.Equal(t, resize.ParamWidth, res.Resize.Param)
	assert.Equal(t, 100, res.Width)
	assert.False(t, res.Resize.AI, "downscales are classic")
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, image.Config{ColorModel: cfg.ColorModel, Width: 100, Height: 100}, cfg)
}

func TestAutocrop(t *testing.T) {
	t.Parallel()
	p := faces.DefaultCropParams()
	detect, _ := process(t, astronaut(t), Request{AutoCrop: &p, AutoCropDetectOnly: true})
	require.NotNil(t, detect.Crop)
	assert.False(t, detect.Cropped)
	assert.Equal(t, 512, detect.Width, "detect-only keeps the image")

	cropped, _ := process(t, astronaut(t), Request{AutoCrop: &p})
	assert.True(t, cropped.Cropped)
	assert.Equal(t, detect.Crop.Dx(), cropped.Width)
	assert.Equal(t, detect.Crop.Dy(), cropped.Height)

	// No face: processed uncropped, with a warning.
	noFace, _ := process(t, encodePNG(t, scene(200, 150)), Request{AutoCrop: &p})
	assert.Nil(t, noFace.Crop)
	assert.Equal(t, 200, noFace.Width)
	assert.NotEmpty(t, noFace.Warnings)
}

func TestBackgroundRemovalDefaultsToPNG(t *testing.T) {
	t.Parallel()
	// The astronaut at 256×256 (its face still found): the format and the
	// matte's corner are what this checks, and matting costs by the pixel
	// (half a second of CPU at 512×512).
	decoded, err := imageio.Decode(bytes.NewReader(astronaut(t)), imageio.Limits{})
	require.NoError(t, err)
	src := encodeJPEG(t, resize.Resize(decoded.Pix, 256, 256, resize.Lanczos3))
	res, out := process(t, src, Request{Background: &matting.Background{Kind: matting.Transparent}})
	assert.Len(t, res.Faces, 1)
	assert.True(t, res.BackgroundRemoved)
	assert.Equal(t, imageio.FormatPNG, res.Format)
	img, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	_, _, _, a := img.At(2, 2).RGBA()
	assert.Less(t, a, uint32(0x8000), "the corner is background, so transparent")

	// Asked for, a JPEG on a colour. The input is a small JPEG without a
	// face: the output format is what this checks (the matte of a portrait
	// is checked above).
	res, _ = process(t, encodeJPEG(t, scene(160, 120)), Request{OutputType: "jpg", Background: &matting.Background{Kind: matting.Color, Color: color.NRGBA{R: 255, A: 255}}})
	assert.True(t, res.BackgroundRemoved)
	assert.Equal(t, imageio.FormatJPEG, res.Format)
}

func TestRejectionsAndFailures(t *testing.T) {
	t.Parallel()
	e := testEngine(t)
	var out bytes.Buffer
	_, err := e.Process(context.Background(), bytes.NewReader(encodePNG(t, scene(20, 20))), Request{}, &out)
	var rej *imageio.RejectError
	assert.ErrorAs(t, err, &rej, "sides of 32 px or less are rejected")

	_, err = e.Process(context.Background(), bytes.NewReader([]byte("GIF89a not supported")), Request{}, &out)
	assert.ErrorIs(t, err, ErrRejected)

	_, err = e.Process(context.Background(), bytes.NewReader(encodePNG(t, scene(64, 64))), Request{OutputType: "gif"}, &out)
	assert.ErrorIs(t, err, ErrRejected)

	jpg := encodeJPEG(t, scene(200, 200))
	_, err = e.Process(context.Background(), bytes.NewReader(jpg[:len(jpg)/2]), Request{}, &out)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrRejected), "a corrupt file fails; it is not rejected")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Process(ctx, bytes.NewReader(encodePNG(t, scene(64, 64))), Request{}, &out)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestBeautifyAspectRule(t *testing.T) {
	t.Parallel()
	src := encodePNG(t, scene(22*40, 40))
	res, _ := process(t, src, Request{BeautifyMaxAspect: 21, Limits: imageio.ContainerLimits})
	assert.False(t, res.Corrected)
	assert.NotEmpty(t, res.Warnings)
}

// BenchmarkJPEG12MP measures the hosted mock's common path: decode, detect,
// correct and encode a 12-megapixel JPEG.
func BenchmarkJPEG12MP(b *testing.B) {
	src := encodeJPEG(b, scene(4000, 3000))
	e := testEngine(b)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		var out bytes.Buffer
		if _, err := e.Process(context.Background(), bytes.NewReader(src), Request{}, &out); err != nil {
			b.Fatal(err)
		}
	}
}
