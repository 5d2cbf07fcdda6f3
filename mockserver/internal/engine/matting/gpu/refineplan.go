package gpu

import (
	"context"
	"errors"
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

var _ matting.RefinePlanner = (*run)(nil)

// PlanRefine plans the refinement on the device (matting.RefinePlanner)
// and refines from the plan: the label changes (refine_edges), the band
// and its surroundings (dilate_rows, dilate_cols), the confident pixels
// and the cells with statistics (refine_cells), their statistics
// (refine_stats), then refine. The plan is matting.ReferenceRefinePlan's
// bit for bit, its statistics laid out one entry per analysis cell. The
// mask is read from the run's device copy when in.Mask is the slice the
// last Classify returned, else uploaded; the raw plane is Analyse's, kept
// on the device. When a cell needs the whole image's means (see
// planBufs.finish) the host sums them from Analyse's raw plane.
func (r *run) PlanRefine(ctx context.Context, in *matting.RefinePlanInput) (*image.Alpha, *image.NRGBA, error) {
	if !r.analysisReady || r.closed {
		return nil, nil, errors.New("gpu: PlanRefine before Analyse or after Close")
	}
	n := r.w * r.h
	if in == nil || len(in.Mask) != n {
		return nil, nil, errors.New("gpu: refinement mask of the wrong size")
	}
	if in.StatsRadius < 1 {
		return nil, nil, errors.New("gpu: statistics radius below 1")
	}
	rBand, rStats := planRadii(r.w, r.h, in.BandRadius, in.StatsRadius)
	alpha := image.NewAlpha(image.Rect(0, 0, r.W, r.H))
	var fg *image.NRGBA
	if in.Spill {
		fg = image.NewNRGBA(alpha.Rect)
	}
	keptMask := kept(in.Mask, r.hostMask)
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		mask := r.mask.p
		if !keptMask {
			if mask, err = s.upload(bytesOf(in.Mask)); err != nil {
				return err
			}
		}
		p, err := newPlanBufs(s, n)
		if err != nil {
			return err
		}
		if err := p.plan(wk, r.w, r.h, mask, r.raw.p, rBand, rStats); err != nil {
			return err
		}
		if _, err := p.finish(s, n, func() ([]float32, error) { return r.hostRawPlane(wk) }); err != nil {
			return err
		}
		return r.refineImages(wk, s, r.w, r.h, r.factor, mask, p.band, p.index, p.stats, alpha, fg)
	})
	if err != nil {
		r.hostAlpha, r.hostFg = nil, nil
		return nil, nil, err
	}
	return alpha, fg, nil
}

// planRadii clamps the plan's radii to a w×h image, which changes neither
// the dilation (its window is clipped at the frame) nor the statistics
// (every window of a radius that large covers the image, and so does
// every doubling of it), and keeps the kernels' int arithmetic in range.
// rStats must be at least 1.
func planRadii(w, h, rBand, rStats int) (int, int) {
	side := max(w, h)
	return min(max(rBand, 0), side), min(rStats, side)
}

// planBufs are the device planes of one refinement plan, from one
// scratch: the label changes and then the band's surroundings (edge, then
// around), the dilations' row pass, the band, the confident pixels (1
// foreground, 2 background), each cell's entry (its own index, or -1),
// the statistics (8 floats per cell) and the flag of a cell that needs the
// image's means.
type planBufs struct {
	edge, rows, band, conf, index, stats, flag devicePtr
}

// around is the band dilated by one, written over the label changes.
func (p *planBufs) around() devicePtr { return p.edge }

// newPlanBufs allocates the planes for n cells from s.
func newPlanBufs(s *scratch, n int) (*planBufs, error) {
	p := &planBufs{}
	for _, b := range []struct {
		p    *devicePtr
		size int
	}{{&p.edge, n}, {&p.rows, n}, {&p.band, n}, {&p.conf, n}, {&p.index, 4 * n}, {&p.stats, 4 * matting.StatsStride * n}, {&p.flag, 4}} {
		d, err := s.alloc(uint64(max(b.size, 1)))
		if err != nil {
			return nil, err
		}
		*b.p = d
	}
	return p, nil
}

// plan queues the plan's kernels on a w×h analysis image: mask's label
// changes dilated by rBand into p.band, that dilated by one into
// p.around(), the confident pixels, the entries and the statistics from
// windows of radius rStats (1 ≤ rStats ≤ max(w, h)) on raw, and the flag.
func (p *planBufs) plan(wk *worker, w, h int, mask, raw devicePtr, rBand, rStats int) error {
	n := int64(w * h)
	if err := wk.launch(kRefineEdges, n, mask, w, h, p.edge); err != nil {
		return err
	}
	if err := wk.launch(kDilateRows, n, p.edge, w, h, rBand, p.rows); err != nil {
		return err
	}
	if err := wk.launch(kDilateCols, n, p.rows, w, h, rBand, p.band); err != nil {
		return err
	}
	// the label changes are no longer needed: around overwrites them
	if err := wk.launch(kDilateRows, n, p.band, w, h, 1, p.rows); err != nil {
		return err
	}
	if err := wk.launch(kDilateCols, n, p.rows, w, h, 1, p.around()); err != nil {
		return err
	}
	if err := wk.launch(kRefineCells, n, mask, p.band, p.around(), w*h, p.conf, p.index); err != nil {
		return err
	}
	if err := wk.launch(kFillI32, 1, p.flag, 1, 0); err != nil {
		return err
	}
	return wk.launch(kRefineStats, n, raw, p.conf, p.index, w, h, rStats, p.stats, p.flag)
}

// finish completes the statistics of the cells that need the whole
// image's means (refine_stats' flag; it waits for the flag, one sync):
// the host sums them from the analysis' raw plane on the host (hostRaw
// gives it, downloading it if need be) and the confident pixels
// downloaded (matting.ConfidentMeans, the CPU's sequential sum), and
// refine_means writes them. It reports whether any cell needed them.
func (p *planBufs) finish(s *scratch, n int, hostRaw func() ([]float32, error)) (bool, error) {
	wk := s.w
	var flag [1]int32
	if err := wk.download(bytesOf(flag[:]), p.flag); err != nil {
		return false, err
	}
	if err := wk.sync(); err != nil {
		return false, err
	}
	if flag[0] == 0 {
		return false, nil
	}
	conf := make([]uint8, n)
	if err := wk.download(conf, p.conf); err != nil {
		return true, err
	}
	if err := wk.sync(); err != nil {
		return true, err
	}
	raw, err := hostRaw()
	if err != nil {
		return true, err
	}
	fg, bg := matting.ConfidentMeans(raw, conf)
	means, err := s.upload(bytesOf([]float32{fg[0], fg[1], fg[2], bg[0], bg[1], bg[2]}))
	if err != nil {
		return true, err
	}
	return true, wk.launch(kRefineMeans, int64(n), p.index, n, means, p.stats)
}

// refineImages queues refine over the run's image from the plan's device
// planes (a w×h analysis at factor f) into the run's kept alpha and fg
// planes and downloads alpha and, when not nil, fg.
func (r *run) refineImages(wk *worker, s *scratch, w, h, f int, mask, band, index, stats devicePtr, alpha *image.Alpha, fg *image.NRGBA) error {
	n := r.W * r.H
	// kept for CompositeRun
	r.hostAlpha, r.hostFg = nil, nil
	if err := ensure(wk, &r.alpha, uint64(n)); err != nil {
		return err
	}
	da, df := r.alpha.p, devicePtr(0)
	if fg != nil {
		if err := ensure(wk, &r.fg, uint64(4*n)); err != nil {
			return err
		}
		df = r.fg.p
	}
	if err := wk.launch(kRefine, int64(n), r.img.p, r.W, r.H, r.stride, w, h, f,
		mask, band, index, stats, fg != nil, da, df); err != nil {
		return err
	}
	if err := wk.download(alpha.Pix, da); err != nil {
		return err
	}
	if fg != nil {
		if err := wk.download(fg.Pix, df); err != nil {
			return err
		}
	}
	r.hostAlpha = alpha.Pix
	if fg != nil {
		r.hostFg = fg.Pix
	}
	return nil
}
