package gpu

import (
	"context"
	"errors"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

var _ matting.PlateSampler = (*run)(nil)

// SamplePlate chooses and sums one round's clean-plate samples on the
// device (matting.PlateSampler): the mask's square dilation (dilate_rows,
// dilate_cols), the samples (plate_use) and their sums per cell
// (plate_sums), bit for bit matting.ReferenceSamplePlate. The mask, the
// distances and the shadow flags are read from the run's device copies
// when in holds the slices the last Classify and BGDistance returned (or
// nil distances and flags after BGDistanceKept), else uploaded; the
// linear plane is Analyse's, kept on the device. The samples stay on the
// device for the round's FieldThreshold.
func (r *run) SamplePlate(ctx context.Context, in *matting.PlateInput) (*matting.PlateSamples, error) {
	if !r.analysisReady || r.closed {
		return nil, errors.New("gpu: SamplePlate before Analyse or after Close")
	}
	n := r.w * r.h
	if in == nil || len(in.Mask) != n {
		return nil, errors.New("gpu: plate input of the wrong size")
	}
	keptDist := kept(in.Dist, r.hostDist) && kept(in.Shadowed, r.hostShadowed)
	if in.Dist == nil && in.Shadowed == nil {
		if !r.distKept {
			return nil, errors.New("gpu: SamplePlate of kept distances without BGDistanceKept")
		}
		keptDist = true
	} else if len(in.Dist) != n || len(in.Shadowed) != n {
		return nil, errors.New("gpu: plate input of the wrong size")
	}
	if in.Cell < 1 {
		return nil, errors.New("gpu: plate cell below 1")
	}
	// Clamped to the image, which changes neither the dilation (its
	// window is clipped at the frame) nor any pixel's cell (all in the
	// first when the cell is that large), and keeps the kernels' int
	// arithmetic in range.
	side := max(r.w, r.h)
	radius, cell := min(max(in.Radius, 0), side), min(in.Cell, side)
	gw, gh := (r.w+cell-1)/cell, (r.h+cell-1)/cell
	out := &matting.PlateSamples{Use: r.results.boolSlice(n), Sums: r.results.float64s(4 * gw * gh)}
	mask, dist, shadowed := r.mask.p, r.dist.p, r.shadowed.p
	keptMask := kept(in.Mask, r.hostMask)
	half := in.T / 2 // the CPU's float32 t/2
	r.hostUse = nil  // overwritten below
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		if !keptMask {
			if mask, err = s.upload(bytesOf(in.Mask)); err != nil {
				return err
			}
		}
		if !keptDist {
			if dist, err = s.upload(bytesOf(in.Dist)); err != nil {
				return err
			}
			if shadowed, err = s.upload(bytesOf(in.Shadowed)); err != nil {
				return err
			}
		}
		// the samples are kept for the round's FieldThreshold
		if err := ensure(wk, &r.use, uint64(n)); err != nil {
			return err
		}
		p, err := newPlateBufs(s, n, gw*gh, r.use.p)
		if err != nil {
			return err
		}
		if err := p.sample(wk, r.w, r.h, mask, dist, shadowed, r.lin.p, radius, cell, half); err != nil {
			return err
		}
		// the kernel writes 0 or 1: valid Go bools
		if err := wk.download(bytesOf(out.Use), p.use); err != nil {
			return err
		}
		return wk.download(bytesOf(out.Sums), p.sums)
	})
	if err != nil {
		return nil, err
	}
	for c := 3; c < len(out.Sums); c += 4 {
		out.Count += int(out.Sums[c]) // an exact integer count per cell
	}
	r.hostUse = out.Use
	return out, nil
}

// plateBufs are the device planes of one SamplePlate: the row pass of the
// dilation, the dilated mask, the samples and the cell sums (4 doubles a
// cell), from one scratch.
type plateBufs struct {
	rows, near, use, sums devicePtr
}

// newPlateBufs allocates the planes for n pixels and cells cells from s;
// the samples go to use, or to a plane of s when use is 0.
func newPlateBufs(s *scratch, n, cells int, use devicePtr) (*plateBufs, error) {
	p := &plateBufs{use: use}
	bufs := []struct {
		p    *devicePtr
		size int
	}{{&p.rows, n}, {&p.near, n}, {&p.sums, 32 * cells}}
	if use == 0 {
		bufs = append(bufs, struct {
			p    *devicePtr
			size int
		}{&p.use, n})
	}
	for _, b := range bufs {
		d, err := s.alloc(uint64(max(b.size, 1)))
		if err != nil {
			return nil, err
		}
		*b.p = d
	}
	return p, nil
}

// sample queues SamplePlate's kernels on a w×h image: the mask dilated by
// radius into p.near, the samples into p.use and their sums per cell of
// size cell into p.sums; radius and cell are at most max(w, h).
func (p *plateBufs) sample(wk *worker, w, h int, mask, dist, shadowed, lin devicePtr, radius, cell int, half float32) error {
	n := int64(w * h)
	if err := wk.launch(kDilateRows, n, mask, w, h, radius, p.rows); err != nil {
		return err
	}
	if err := wk.launch(kDilateCols, n, p.rows, w, h, radius, p.near); err != nil {
		return err
	}
	if err := wk.launch(kPlateUse, n, p.near, shadowed, dist, w*h, f32bits(half), p.use); err != nil {
		return err
	}
	cells := ((w + cell - 1) / cell) * ((h + cell - 1) / cell)
	return wk.launch(kPlateSums, int64(cells), p.use, lin, w, h, cell, p.sums)
}
