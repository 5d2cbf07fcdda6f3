package gpu

import (
	"context"
	"errors"
	"unsafe"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

var _ matting.FieldEvaluator = (*run)(nil)

// FieldGrid evaluates the field's L*a*b* grid on the device
// (matting.FieldEvaluator: field_grid), bit for bit
// matting.ReferenceFieldGrid. The grid stays on the device, where the next
// BGDistance reads it when handed the slice returned here.
func (r *run) FieldGrid(ctx context.Context, f *matting.Field, step int) ([]float32, int, int, error) {
	if !r.analysisReady || r.closed {
		return nil, 0, 0, errors.New("gpu: FieldGrid before Analyse or after Close")
	}
	if step < 1 {
		return nil, 0, 0, errors.New("gpu: field grid step below 1")
	}
	if err := r.checkField(f); err != nil {
		return nil, 0, 0, err
	}
	step = min(step, max(r.w, r.h)) // the same nodes, int arithmetic in range
	gw, gh := (r.w+step-1)/step+1, (r.h+step-1)/step+1
	grid := r.results.float32s(3 * gw * gh)
	r.hostGrid = nil // overwritten below: no longer the old slice's
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		coef, col, err := uploadField(s, f)
		if err != nil {
			return err
		}
		if err := ensureAtLeast(wk, &r.grid, uint64(4*len(grid))); err != nil {
			return err
		}
		pgw, pgh, cell := plateDims(f)
		if err := wk.launch(kFieldGrid, int64(gw*gh), coef, col, pgw, pgh, cell, r.w, r.h, gw, gh, step, wk.table(tabCbrt), r.grid.p); err != nil {
			return err
		}
		return wk.download(bytesOf(grid), r.grid.p)
	})
	if err != nil {
		return nil, 0, 0, err
	}
	r.hostGrid, r.gridW, r.gridH, r.gridStep = grid, gw, gh, step
	return grid, gw, gh, nil
}

// FieldThreshold computes a classification round's threshold on the
// device (matting.FieldEvaluator), bit for bit
// matting.ReferenceFieldThreshold: the residuals on the subsampling grid
// and the count of those below 20 (field_residuals), the rank of their
// 95th percentile (thresh_rank), its exact selection by the fit's radix
// select (selPasses launches of fit_select) and the threshold
// (thresh_final); one synchronisation. use is read from the device when it
// is the slice the last SamplePlate returned, else uploaded.
func (r *run) FieldThreshold(ctx context.Context, f *matting.Field, use []bool) (float32, error) {
	if !r.analysisReady || r.closed {
		return 0, errors.New("gpu: FieldThreshold before Analyse or after Close")
	}
	if use != nil && len(use) != r.w*r.h {
		return 0, errors.New("gpu: threshold use mask of the wrong size")
	}
	if err := r.checkField(f); err != nil {
		return 0, err
	}
	step := matting.FieldSubsampling(r.w, r.h)
	m := ((r.w - step/2 + step - 1) / step) * ((r.h - step/2 + step - 1) / step)
	st := new(fitState)
	keptUse := use != nil && kept(use, r.hostUse)
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		coef, col, err := uploadField(s, f)
		if err != nil {
			return err
		}
		var usePtr devicePtr
		switch {
		case keptUse:
			usePtr = r.use.p
		case use != nil:
			if usePtr, err = s.upload(bytesOf(use)); err != nil {
				return err
			}
		}
		state, err := s.upload(st.bytes())
		if err != nil {
			return err
		}
		res, err := s.alloc(uint64(4 * max(m, 1)))
		if err != nil {
			return err
		}
		pgw, pgh, cell := plateDims(f)
		if err := wk.launch(kFieldResiduals, int64(m), r.lab.p, usePtr, coef, col, pgw, pgh, cell, r.w, r.h, step, wk.table(tabCbrt), res, state); err != nil {
			return err
		}
		if err := wk.launch(kThreshRank, 1, state); err != nil {
			return err
		}
		if err := selectOn(wk, res, m, state); err != nil {
			return err
		}
		if err := wk.launch(kThreshFinal, 1, state); err != nil {
			return err
		}
		return wk.download(st.bytes(), state)
	})
	if err != nil {
		return 0, err
	}
	return st.T, nil
}

// checkField rejects a field that does not fit the run's analysis image,
// which the kernels would read out of range.
func (r *run) checkField(f *matting.Field) error {
	if f == nil {
		return errors.New("gpu: no field")
	}
	p := f.Plate
	if p != nil && (p.Cell < 1 || p.GW != (r.w+p.Cell-1)/p.Cell || p.GH != (r.h+p.Cell-1)/p.Cell || len(p.Col) != 3*p.GW*p.GH) {
		return errors.New("gpu: the plate's grid does not match the analysis size")
	}
	return nil
}

// plateDims returns the plate's grid and cell size, zeros for a model.
func plateDims(f *matting.Field) (pgw, pgh, cell int) {
	if p := f.Plate; p != nil {
		return p.GW, p.GH, p.Cell
	}
	return 0, 0, 0
}

// uploadField uploads the field's description to s: the model's 18
// coefficients (col is 0), or the plate's colours (coef is 0).
func uploadField(s *scratch, f *matting.Field) (coef, col devicePtr, err error) {
	if f.Plate != nil {
		col, err = s.upload(bytesOf(f.Plate.Col))
		return 0, col, err
	}
	m := f.Model
	coef, err = s.upload(bytesOf(unsafe.Slice(&m[0][0], 3*matting.PolyTerms)))
	return coef, 0, err
}

// ensureAtLeast is ensure for a kept buffer whose size may grow between
// calls: a smaller one is given back and a new one allocated.
func ensureAtLeast(wk *worker, b *buf, n uint64) error {
	if b.p != 0 && b.n >= n {
		return nil
	}
	if b.p != 0 {
		if err := wk.release(b.p, b.n); err != nil {
			return err
		}
		*b = buf{}
	}
	return ensure(wk, b, n)
}
