package gpu

import (
	"context"
	"errors"
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// stages implements matting.Stages on a device.
type stages struct{ d *device }

var _ matting.Stages = stages{}

// buf is a pooled device buffer and its requested size.
type buf struct {
	p devicePtr
	n uint64
}

// run is one removal's device state: the uploaded image; after Analyse,
// the L*a*b* plane that BGDistance and Classify read, the linear plane
// that SamplePlate reads and the raw sRGB plane that PlanRefine reads; and the last round's planes, kept on the device
// so that the next stage of the round need not upload them again: the
// last BGDistance's outputs and the last Classify's mask.
type run struct {
	d             *device
	W, H, stride  int
	w, h, factor  int
	img, lab, lin buf
	raw           buf
	closed        bool
	analysisReady bool
	// dist, plain and shadowed hold the last BGDistance's outputs and
	// mask the last Classify's result (allocated by the first call, kept
	// until Close). hostDist, hostPlain, hostShadowed and hostMask are
	// the slices those calls returned, nil while the device copy is not
	// theirs (before the call, or after a failed one): a later stage reads
	// the device copy only when handed the very same slice (see kept),
	// which the pipeline does not change in between (matting.PlateSampler).
	// Holding the slices also keeps their memory from being reused for
	// another slice at the same address.
	dist, plain, shadowed, mask buf
	hostDist, hostPlain         []float32
	hostShadowed, hostMask      []bool
	// distKept is set while the device copies are the last
	// BGDistanceKept's, which Classify and SamplePlate read when handed
	// nil.
	distKept bool
	// alpha and fg hold the last refinement's matte and spill-corrected
	// colours, kept for CompositeRun: hostAlpha and hostFg are the Pix
	// of the images returned.
	alpha, fg         buf
	hostAlpha, hostFg []uint8
	// grid holds the last FieldGrid's grid (gridW×gridH nodes at
	// gridStep) and use the last SamplePlate's samples, kept like the
	// round's planes: hostGrid and hostUse are the slices returned.
	grid, use              buf
	hostGrid               []float32
	hostUse                []bool
	gridW, gridH, gridStep int
	// hostRaw, hostLin and hostLab are Analyse's planes, which the
	// pipeline only reads: PlanRefine sums the image's means from the raw
	// plane when a cell needs them, FitBackground refits from the others
	// when the device flags a NaN.
	hostRaw, hostLin, hostLab []float32
	// results are the pooled host slices the run's results were
	// downloaded into, given back to the device's pool at Close.
	results hostSlices
}

// kept reports whether s is the slice k the run recorded for a device
// copy: the same first element and length.
func kept[T any](s, k []T) bool { return len(s) > 0 && len(s) == len(k) && &s[0] == &k[0] }

// ensure allocates b with n bytes on the device unless it is allocated:
// the run's kept planes, allocated once and released by Close.
func ensure(wk *worker, b *buf, n uint64) error {
	if b.p != 0 {
		return nil
	}
	p, err := wk.alloc(n)
	if err != nil {
		return err
	}
	*b = buf{p, n}
	return nil
}

// Begin uploads img.
func (s stages) Begin(ctx context.Context, img *image.NRGBA) (matting.StageRun, error) {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	// A slot first: the device holds the buffers of at most maxRuns runs
	// (Options.MaxRuns), whatever the number of callers.
	if err := s.d.beginRun(ctx); err != nil {
		return nil, err
	}
	r := &run{d: s.d, W: W, H: H, stride: img.Stride, results: hostSlices{pool: s.d.host}}
	src := img.Pix[:img.Stride*(H-1)+4*W]
	err := s.d.do(ctx, func(w *worker) error {
		p, err := w.uploadNew(src)
		if err != nil {
			return err
		}
		r.img = buf{p, uint64(len(src))}
		// The copy of pageable memory is staged before the call returns;
		// sync all the same so img may change once Begin returns.
		return w.sync()
	})
	if err != nil {
		r.Close() // gives back the slot, and the image's buffer if any
		return nil, err
	}
	return r, nil
}

// scratch allocates buffers inside a job and releases them at its end.
type scratch struct {
	w    *worker
	bufs []buf
}

func (s *scratch) alloc(n uint64) (devicePtr, error) {
	p, err := s.w.alloc(n)
	if err != nil {
		return 0, err
	}
	s.bufs = append(s.bufs, buf{p, n})
	return p, nil
}

func (s *scratch) upload(src []byte) (devicePtr, error) {
	p, err := s.alloc(uint64(len(src)))
	if err != nil {
		return 0, err
	}
	return p, s.w.upload(p, src)
}

// done syncs the stream (so no kernel still uses a buffer) and releases
// the buffers, returning err or the first new error.
func (s *scratch) done(err error) error {
	if serr := s.w.sync(); err == nil {
		err = serr
	}
	for _, b := range s.bufs {
		if rerr := s.w.release(b.p, b.n); err == nil {
			err = rerr
		}
	}
	return err
}

// Analyse runs downsample, median3 (with preprocess) and colour, keeping
// the raw, linear and L*a*b* planes on the device for later stages.
func (r *run) Analyse(ctx context.Context, f int, preprocess bool) (*matting.Planes, error) {
	if f < 1 {
		return nil, errors.New("gpu: analysis factor below 1")
	}
	w, h := (r.W+f-1)/f, (r.H+f-1)/f
	n := w * h
	var pl *matting.Planes
	if !r.analysisReady && !r.closed {
		res := &r.results
		pl = &matting.Planes{W: w, H: h, Raw: res.float32s(3 * n), Lin: res.float32s(3 * n), Lab: res.float32s(3 * n)}
		pl.SRGB = pl.Raw
		if preprocess {
			pl.SRGB = res.float32s(3 * n)
		}
	}
	if err := r.analyse(ctx, f, preprocess, pl); err != nil {
		return nil, err
	}
	r.hostRaw, r.hostLin, r.hostLab = pl.Raw, pl.Lin, pl.Lab
	return pl, nil
}

var _ matting.PlaneKeeper = (*run)(nil)

// AnalyseKept is Analyse without copying the planes back
// (matting.PlaneKeeper); the stages that need them on the host (a refit,
// the refinement's image-wide means) download them then (hostPlanes,
// hostRawPlane).
func (r *run) AnalyseKept(ctx context.Context, f int, preprocess bool) (int, int, error) {
	if f < 1 {
		return 0, 0, errors.New("gpu: analysis factor below 1")
	}
	if err := r.analyse(ctx, f, preprocess, nil); err != nil {
		return 0, 0, err
	}
	return r.w, r.h, nil
}

// analyse runs the analysis kernels into the run's kept planes and, unless
// pl is nil, downloads them into pl.
func (r *run) analyse(ctx context.Context, f int, preprocess bool, pl *matting.Planes) error {
	if r.analysisReady || r.closed {
		return errors.New("gpu: Analyse called twice or after Close")
	}
	w, h := (r.W+f-1)/f, (r.H+f-1)/f
	n := w * h
	plane := uint64(12 * n)
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		// kept for PlanRefine's statistics
		if err := ensure(wk, &r.raw, plane); err != nil {
			return err
		}
		raw := r.raw.p
		if err := wk.launch(kDownsample, int64(n), r.img.p, r.W, r.H, r.stride, f, w, h, raw); err != nil {
			return err
		}
		if pl != nil {
			if err := wk.download(bytesOf(pl.Raw), raw); err != nil {
				return err
			}
		}
		srgb := raw
		if preprocess {
			if srgb, err = s.alloc(plane); err != nil {
				return err
			}
			if err := wk.launch(kMedian3, int64(n), raw, srgb, w, h); err != nil {
				return err
			}
			if pl != nil {
				if err := wk.download(bytesOf(pl.SRGB), srgb); err != nil {
					return err
				}
			}
		}
		// both kept: lab for BGDistance and Classify, lin for SamplePlate
		if err := ensure(wk, &r.lin, plane); err != nil {
			return err
		}
		if err := ensure(wk, &r.lab, plane); err != nil {
			return err
		}
		if err := wk.launch(kColour, int64(n), srgb, r.lin.p, r.lab.p, n, wk.table(tabLin), wk.table(tabCbrt)); err != nil {
			return err
		}
		if pl == nil {
			return nil
		}
		if err := wk.download(bytesOf(pl.Lin), r.lin.p); err != nil {
			return err
		}
		return wk.download(bytesOf(pl.Lab), r.lab.p)
	})
	if err != nil {
		return err
	}
	r.w, r.h, r.factor, r.analysisReady = w, h, f, true
	return nil
}

// hostPlanes downloads the linear and L*a*b* planes into hostLin and
// hostLab unless Analyse (or an earlier call) did; after AnalyseKept, a
// refit on the host calls it first.
func (r *run) hostPlanes(ctx context.Context) error {
	if r.hostLin != nil && r.hostLab != nil {
		return nil
	}
	return r.d.do(ctx, func(wk *worker) error {
		lin, err := r.downloadPlane(wk, r.lin.p)
		if err != nil {
			return err
		}
		lab, err := r.downloadPlane(wk, r.lab.p)
		if err != nil {
			return err
		}
		r.hostLin, r.hostLab = lin, lab
		return nil
	})
}

// hostRawPlane returns the raw plane on the host, downloading it inside a
// job of the worker unless Analyse did: PlanRefine's image-wide means
// read it.
func (r *run) hostRawPlane(wk *worker) ([]float32, error) {
	if r.hostRaw == nil {
		raw, err := r.downloadPlane(wk, r.raw.p)
		if err != nil {
			return nil, err
		}
		r.hostRaw = raw
	}
	return r.hostRaw, nil
}

// downloadPlane downloads an analysis plane (3 floats a pixel) into a
// pooled slice and waits for it.
func (r *run) downloadPlane(wk *worker, src devicePtr) ([]float32, error) {
	dst := r.results.float32s(3 * r.w * r.h)
	if err := wk.download(bytesOf(dst), src); err != nil {
		return nil, err
	}
	return dst, wk.sync()
}

// BGDistance runs bgdist on the analysis L*a*b* plane. Its outputs stay
// on the device for the round's Classify and SamplePlate. The grid is
// read from the device when it is the slice the last FieldGrid returned.
func (r *run) BGDistance(ctx context.Context, grid []float32, gw, gh, step int) ([]float32, []float32, []bool, error) {
	n := r.w * r.h
	var out roundPlanes
	if r.analysisReady && !r.closed {
		out = roundPlanes{r.results.float32s(n), r.results.float32s(n), r.results.boolSlice(n)}
	}
	if err := r.bgDistance(ctx, grid, gw, gh, step, &out); err != nil {
		return nil, nil, nil, err
	}
	r.hostDist, r.hostPlain, r.hostShadowed = out.dist, out.plain, out.shadowed
	return out.dist, out.plain, out.shadowed, nil
}

var _ matting.DistanceKeeper = (*run)(nil)

// BGDistanceKept is BGDistance without copying the outputs back
// (matting.DistanceKeeper): Classify and SamplePlate read them on the
// device when handed nil.
func (r *run) BGDistanceKept(ctx context.Context, grid []float32, gw, gh, step int) error {
	if err := r.bgDistance(ctx, grid, gw, gh, step, nil); err != nil {
		return err
	}
	r.distKept = true
	return nil
}

// roundPlanes are host slices for a round's distances and shadow flags.
type roundPlanes struct {
	dist, plain []float32
	shadowed    []bool
}

// bgDistance runs bgdist into the run's kept planes and downloads them
// into out unless out is nil.
func (r *run) bgDistance(ctx context.Context, grid []float32, gw, gh, step int, out *roundPlanes) error {
	if !r.analysisReady || r.closed {
		return errors.New("gpu: BGDistance before Analyse or after Close")
	}
	if len(grid) != 3*gw*gh || step < 1 {
		return errors.New("gpu: background grid of the wrong size")
	}
	n := r.w * r.h
	// The device copies are overwritten here: no longer the old slices'.
	r.hostDist, r.hostPlain, r.hostShadowed, r.distKept = nil, nil, nil, false
	keptGrid := kept(grid, r.hostGrid) && gw == r.gridW && gh == r.gridH && step == r.gridStep
	return r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		g := r.grid.p
		if !keptGrid {
			if g, err = s.upload(bytesOf(grid)); err != nil {
				return err
			}
		}
		// kept for the round's Classify and SamplePlate
		for _, b := range []struct {
			b *buf
			n int
		}{{&r.dist, 4 * n}, {&r.plain, 4 * n}, {&r.shadowed, n}} {
			if err := ensure(wk, b.b, uint64(b.n)); err != nil {
				return err
			}
		}
		if err := wk.launch(kBGDist, int64(n), r.lab.p, g, r.w, r.h, gw, step, r.dist.p, r.plain.p, r.shadowed.p); err != nil {
			return err
		}
		if out == nil {
			return nil
		}
		if err := wk.download(bytesOf(out.dist), r.dist.p); err != nil {
			return err
		}
		if err := wk.download(bytesOf(out.plain), r.plain.p); err != nil {
			return err
		}
		// the kernel writes 0 or 1: valid Go bools
		return wk.download(bytesOf(out.shadowed), r.shadowed.p)
	})
}

// Refine runs refine at full resolution.
func (r *run) Refine(ctx context.Context, in *matting.RefineInput) (*image.Alpha, *image.NRGBA, error) {
	if r.closed {
		return nil, nil, errors.New("gpu: Refine after Close")
	}
	cells := in.W * in.H
	if in.Factor < 1 || len(in.Mask) != cells || len(in.Band) != cells || len(in.Index) != cells ||
		len(in.Stats)%matting.StatsStride != 0 || (in.W-1)*in.Factor >= r.W || (in.H-1)*in.Factor >= r.H {
		return nil, nil, errors.New("gpu: refinement input does not match the image")
	}
	alpha := image.NewAlpha(image.Rect(0, 0, r.W, r.H))
	var fg *image.NRGBA
	if in.Spill {
		fg = image.NewNRGBA(alpha.Rect)
	}
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		mask, err := s.upload(in.Mask)
		if err != nil {
			return err
		}
		band, err := s.upload(in.Band)
		if err != nil {
			return err
		}
		index, err := s.upload(bytesOf(in.Index))
		if err != nil {
			return err
		}
		stats, err := s.upload(bytesOf(in.Stats))
		if err != nil {
			return err
		}
		return r.refineImages(wk, s, in.W, in.H, in.Factor, mask, band, index, stats, alpha, fg)
	})
	if err != nil {
		r.hostAlpha, r.hostFg = nil, nil
		return nil, nil, err
	}
	return alpha, fg, nil
}

// Close returns the run's buffers to the pool.
func (r *run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.hostDist, r.hostPlain, r.hostShadowed, r.hostMask = nil, nil, nil, nil
	r.hostRaw, r.hostLin, r.hostLab, r.hostGrid, r.hostUse = nil, nil, nil, nil, nil
	r.hostAlpha, r.hostFg = nil, nil
	// Not cancellable: the buffers must go back even when the removal's
	// context has ended. After the engine's Close the pool is gone anyway.
	_ = r.d.do(context.Background(), func(wk *worker) error {
		var err error
		for _, b := range []buf{r.img, r.raw, r.lab, r.lin, r.dist, r.plain, r.shadowed, r.mask, r.grid, r.use, r.alpha, r.fg} {
			if b.p != 0 {
				if rerr := wk.release(b.p, b.n); err == nil {
					err = rerr
				}
			}
		}
		return err
	})
	// Every job of the run has returned (do waits for a job the worker
	// took), so no download still writes into these.
	r.results.release()
	r.d.endRun()
}
