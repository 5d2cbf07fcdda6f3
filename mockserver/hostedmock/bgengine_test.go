package hostedmock

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// TestHostedBGEngineWithProcessor: the engine is the reference engine's;
// a Processor of one's own has none (bgengine_test.go tests the choice).
func TestHostedBGEngineWithProcessor(t *testing.T) {
	t.Parallel()
	proc := ProcessorFunc(func(context.Context, io.Reader, JobRequest, io.Writer) (*JobResult, error) {
		return &JobResult{}, nil
	})
	_, err := New(Options{DataDir: t.TempDir(), BGEngine: mockserver.BGEngineCPU, Processor: proc})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
	assert.ErrorContains(t, err, "BGEngine applies to the reference engine only; it cannot be combined with Processor")

	h, err := New(Options{DataDir: t.TempDir(), Processor: proc})
	require.NoError(t, err)
	assert.Equal(t, mockserver.BGEngine(""), h.BGEngine(), "no engine of its own with a Processor")
	require.NoError(t, h.Close())
}

// deviceRemover stands for a removal engine with a device (the GPU engine):
// it removes and composites with the CPU engine and records each call.
type deviceRemover struct {
	mu         sync.Mutex
	removals   int
	composites []matting.Background
}

func (d *deviceRemover) RemoveBackground(ctx context.Context, img *image.NRGBA, o matting.Options) (*matting.Matte, error) {
	d.mu.Lock()
	d.removals++
	d.mu.Unlock()
	return matting.NewCPU().RemoveBackground(ctx, img, o)
}

func (d *deviceRemover) Composite(_ context.Context, fg *image.NRGBA, m *matting.Matte, bg matting.Background) (*image.NRGBA, error) {
	d.mu.Lock()
	d.composites = append(d.composites, bg)
	d.mu.Unlock()
	return matting.Composite(fg, m, bg), nil
}

// TestHostedCompositesOnTheRemoversDevice: a background job of the
// hosted mock removes and composites with the engine's remover, so the GPU
// engine does both on its device.
func TestHostedCompositesOnTheRemoversDevice(t *testing.T) {
	t.Parallel()
	dev := &deviceRemover{}
	srv := start(t, nil, dev)
	assert.Equal(t, mockserver.BGEngine("custom"), srv.Mock.BGEngine())

	src := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			c := color.NRGBA{R: 230, G: 230, B: 230, A: 255}
			if x > 30 && x < 66 && y > 16 && y < 48 {
				c = color.NRGBA{R: 200, G: 40, B: 30, A: 255}
			}
			src.SetNRGBA(x, y, c)
		}
	}
	var in bytes.Buffer
	require.NoError(t, png.Encode(&in, src))
	var out bytes.Buffer
	opts := hosted.NewCorrection().WithPreset(hosted.PresetNone).WithBackgroundColor("#336699").WithShadow(hosted.ShadowSoft)
	job, err := srv.Client.Correct(context.Background(), bytes.NewReader(in.Bytes()), int64(in.Len()), opts, &out, nil)
	require.NoError(t, err)
	require.Equal(t, hosted.StatusCompleted, job.Status, job.StatusText)

	dev.mu.Lock()
	defer dev.mu.Unlock()
	assert.Equal(t, 1, dev.removals)
	require.Len(t, dev.composites, 1, "composited by the remover")
	bg := dev.composites[0]
	assert.Equal(t, matting.Color, bg.Kind)
	assert.Equal(t, color.NRGBA{R: 0x33, G: 0x66, B: 0x99, A: 255}, bg.Color)
	assert.Equal(t, matting.ShadowSoft, bg.Shadow)

	got, _, err := image.Decode(&out)
	require.NoError(t, err)
	r, g, b, _ := got.At(2, 2).RGBA()
	assert.Equal(t, [3]uint32{0x33, 0x66, 0x99}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the corner shows the new background")
}
