package gpu

import (
	"context"
	"fmt"
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// Options configures New.
type Options struct {
	// Device is the CUDA device ordinal; 0 is the first GPU.
	Device int
	// MaxIdleBytes bounds the device memory kept pooled while unused; 0
	// means 1 GiB.
	MaxIdleBytes uint64
	// MaxIdleHostBytes bounds the host memory kept pooled for results
	// (analysis planes, distances, masks) while unused; 0 means 512 MiB.
	MaxIdleHostBytes uint64
	// Streams is the number of jobs the device runs at once, each on a
	// stream of its own served by its own thread, so that one removal's
	// host work overlaps the device work of others; 0 means
	// DefaultStreams.
	Streams int
	// MaxRuns bounds the removals holding device buffers at once (about
	// 250 MB each at 12 MP); a removal beyond it waits for one to end,
	// which bounds device memory under any number of concurrent callers.
	// 0 means 2·Streams.
	MaxRuns int
}

// DefaultStreams is Options.Streams when 0.
const DefaultStreams = 4

// Engine is the GPU background-removal engine: a matting.Remover (and
// matting.Compositor) that runs the per-pixel stages on a CUDA device. It
// is safe for concurrent use; removals share the device through its single
// worker. Close it when done.
type Engine struct {
	dev     *device
	remover matting.Remover
}

var (
	_ matting.Remover          = (*Engine)(nil)
	_ matting.Compositor       = (*Engine)(nil)
	_ matting.RemoveCompositor = (*Engine)(nil)
	_ matting.Compositor       = stages{}
	_ matting.RunCompositor    = (*run)(nil)
)

// New loads the CUDA driver (libcuda.so.1), opens the device and loads
// the kernels. Errors match ErrUnavailable when the engine cannot run here
// (ErrNotCompiled in a build without the cuda tag, a *LoadError wrapping
// ErrNoDriver, ErrNoDevice); driver failures are *DriverError.
func New(o Options) (*Engine, error) {
	drv, err := openDriver()
	if err != nil {
		return nil, err
	}
	return newEngine(drv, o)
}

// newEngine opens the engine on drv.
func newEngine(drv driver, o Options) (*Engine, error) {
	if o.Streams < 0 || o.MaxRuns < 0 {
		return nil, fmt.Errorf("gpu: Options.Streams (%d) and Options.MaxRuns (%d) must not be negative", o.Streams, o.MaxRuns)
	}
	streams := o.Streams
	if streams == 0 {
		streams = DefaultStreams
	}
	maxRuns := o.MaxRuns
	if maxRuns == 0 {
		maxRuns = 2 * streams
	}
	var tables [numTables][]float32
	tables[tabLin], tables[tabCbrt] = matting.ColourTables()
	tables[tabGamma], tables[tabSRGB8] = matting.CompositeTables()
	d, err := openDevice(drv, deviceConfig{ordinal: o.Device, streams: streams, maxRuns: maxRuns, maxIdle: o.MaxIdleBytes, maxIdleHost: o.MaxIdleHostBytes, ptx: kernelsPTX, tables: tables})
	if err != nil {
		return nil, err
	}
	return &Engine{dev: d, remover: matting.NewAccelerated(stages{d})}, nil
}

// Device returns the GPU's name as the driver reports it.
func (e *Engine) Device() string { return e.dev.name }

// RemoveBackground computes the matte of img (see matting.CPU): the same
// pipeline, with the per-pixel stages on the GPU.
func (e *Engine) RemoveBackground(ctx context.Context, img *image.NRGBA, o matting.Options) (*matting.Matte, error) {
	return e.remover.RemoveBackground(ctx, img, o)
}

// Composite is matting.Composite on the GPU, with identical results: the
// blending, the background's full-resolution stages (an uploaded image's
// cover resize, a generated background's enlargement and dither) and the
// shadows' full-resolution stages (the soft shadow's reduction of the
// shifted alpha, the hard shadow's shift, the floating shadow's scan, the
// enlargement of the shadow plane and the shading) run on the device; the
// reduced-resolution parts (a generated scene at ≤512 px, the shadow
// blurs and the floating ellipse at ≤1024 px, the resize's taps) and the
// conversion of an uploaded image that is not an *image.NRGBA at the
// origin run on the CPU with matting's code. An fg whose pixels are not
// contiguous, or a matte that is not fg's size or not contiguous, is
// composited wholly on the CPU.
func (e *Engine) Composite(ctx context.Context, fg *image.NRGBA, m *matting.Matte, bg matting.Background) (*image.NRGBA, error) {
	return stages{e.dev}.Composite(ctx, fg, m, bg)
}

// RemoveAndComposite removes img's background and composites the subject
// onto bg (matting.RemoveCompositor) in one run: the composite reads the
// image uploaded for the removal and the matte (and spill-corrected
// colours) the refinement left on the device, so that neither is
// uploaded again.
func (e *Engine) RemoveAndComposite(ctx context.Context, img *image.NRGBA, o matting.Options, bg matting.Background) (*matting.Matte, *image.NRGBA, error) {
	return matting.RemoveAndComposite(ctx, e.remover, img, o, bg)
}

// Composite composites on the device (matting.Compositor), or with
// matting.Composite when gpuComposite says it cannot.
func (s stages) Composite(ctx context.Context, fg *image.NRGBA, m *matting.Matte, bg matting.Background) (*image.NRGBA, error) {
	kind, ok := gpuComposite(fg, m, bg)
	if !ok {
		return matting.Composite(fg, m, bg), nil
	}
	c := newComposition(fg, m, bg, kind)
	out := image.NewNRGBA(fg.Rect)
	err := s.d.do(ctx, func(wk *worker) (err error) {
		sc := &scratch{w: wk}
		defer func() { err = sc.done(err) }()
		return c.run(sc, out.Pix)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// gpuComposite says whether Composite runs on the GPU, and as which kind
// (Transparent, Color, Image or Generative): it does unless fg is nil,
// empty or not contiguous, or the matte (or a Foreground of fg's size) is
// not contiguous or the matte not of fg's size.
func gpuComposite(fg *image.NRGBA, m *matting.Matte, bg matting.Background) (matting.BackgroundKind, bool) {
	if fg == nil || fg.Rect.Empty() || fg.Stride != 4*fg.Rect.Dx() {
		return 0, false
	}
	w := fg.Rect.Dx()
	if m != nil {
		if m.Alpha == nil || m.Alpha.Rect != fg.Rect || m.Alpha.Stride != w {
			return 0, false
		}
		if f := m.Foreground; f != nil && f.Rect == fg.Rect && f.Stride != 4*w {
			return 0, false
		}
	}
	switch bg.Kind {
	case matting.Color, matting.Image, matting.Generative:
		return bg.Kind, true
	}
	// Transparent, and unknown kinds, which Composite treats as such.
	return matting.Transparent, true
}

// Close stops the device's worker and releases the device. Removals still
// running fail with ErrClosed. It is idempotent.
func (e *Engine) Close() error { return e.dev.close() }
