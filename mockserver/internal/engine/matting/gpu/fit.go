package gpu

import (
	"context"
	"errors"
	"unsafe"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

var _ matting.BackgroundFitter = (*run)(nil)

// fitState is struct fitstate of kernels.cu, the state one fit's kernels
// (or one threshold's, field.go) share on the device; the layouts agree field for field (checked by
// static_assert there and TestFitStateLayout here).
type fitState struct {
	Coef          matting.BackgroundCoef
	CutK, CutMin  float64
	Flag, K       int32
	Prefix, Value uint32
	Cut           float64
	ATA           [matting.PolyTerms][matting.PolyTerms]float64
	ATB           [3][matting.PolyTerms]float64
	Hist          [selBins]uint32
	// Count and T are the threshold's (field.go).
	Count int32
	T     float32
	// Ticket counts the blocks done with a pass of fit_select.
	Ticket uint32
}

// selBins and selPasses are SEL_BINS and SEL_PASSES of kernels.cu: the
// radix select's digits (11 bits) and passes (digits of 11, 11 and 10
// bits).
const (
	selBins   = 2048
	selPasses = 3
)

// selPerThread is the values each thread of fit_select counts: about as
// many as the bins each clears and adds to the state, so a select of
// 20 000 values runs on 10 blocks.
const selPerThread = 8

// selectOn queues the radix select of the element of rank state.k among
// the m values vals (selPasses launches of fit_select, the last block of
// each picking the pass's digit).
func selectOn(wk *worker, vals devicePtr, m int, state devicePtr) error {
	for pass := 0; pass < selPasses; pass++ {
		if err := wk.launch(kFitSelect, int64((m+selPerThread-1)/selPerThread), vals, m, pass, state); err != nil {
			return err
		}
	}
	return nil
}

// bytes is the state's memory, to copy to and from the device.
func (st *fitState) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(st)), unsafe.Sizeof(*st))
}

// fitHead is the part of fitState the host reads back: the model and the
// flag.
const fitHead = unsafe.Offsetof(fitState{}.Flag) + 4

// fitEntries is the number of sums of the normal equations, one fit_sums
// thread each: the upper triangle of AᵀWA and AᵀWb per channel.
const fitEntries = matting.PolyTerms*(matting.PolyTerms+1)/2 + 3*matting.PolyTerms

// fitChunk is FIT_CHUNK of kernels.cu: the samples each fit_partial
// thread adds, in their order, for one entry.
const fitChunk = 64

// fitChunks is the number of partial sums of each entry for m samples.
func fitChunks(m int) int { return (m + fitChunk - 1) / fitChunk }

// FitBackground fits the background model on the device
// (matting.BackgroundFitter), bit for bit matting.ReferenceFitBackground:
// without a starting model, the medians of the samples' linear light
// (fit_gather, fit_select, fit_init); the samples' basis
// (fit_basis), then per round their residuals
// (fit_residuals), the median residual (selPasses passes of the radix
// select fit_select), the Tukey weights (fit_weights), the normal equations
// (a two-pass reduction: fit_partial, one thread per entry and chunk of
// fitChunk samples adding them in order, then fit_sums adding the chunks
// in order; the result differs from the CPU's sequential sum in the last
// bits only, and not at all up to fitChunk samples) and their solution
// (fit_solve), and the final residuals; one synchronisation at the end. The planes are Analyse's, kept on the
// device. A NaN residual or a sample's linear light that is not finite
// (which image data cannot produce) would make the device's result
// depend on how it orders NaN and skips samples: the device flags them
// and the host refits from the analysis planes.
func (r *run) FitBackground(ctx context.Context, in *matting.FitInput) (*matting.BackgroundFit, error) {
	if !r.analysisReady || r.closed {
		return nil, errors.New("gpu: FitBackground before Analyse or after Close")
	}
	if in == nil {
		return nil, errors.New("gpu: no fit input")
	}
	n := r.w * r.h
	for _, p := range in.Samples {
		if p < 0 || int(p) >= n {
			return nil, errors.New("gpu: background sample outside the analysis image")
		}
	}
	m := len(in.Samples)
	if m == 0 {
		// nothing to sum: the CPU's answer is immediate (a zero model)
		return r.hostFit(ctx, in)
	}
	st := &fitState{CutK: matting.TukeyCut, CutMin: matting.MinCut, K: int32(m / 2)}
	if in.Init != nil {
		st.Coef = *in.Init
	}
	var res []float32
	if in.Residuals {
		res = r.results.float32s(m)
	}
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		idx, err := s.upload(bytesOf(in.Samples))
		if err != nil {
			return err
		}
		state, err := s.upload(st.bytes())
		if err != nil {
			return err
		}
		b, err := newFitBufs(s, m)
		if err != nil {
			return err
		}
		if err := b.run(wk, r.w, r.h, m, idx, state, r.lin.p, r.lab.p, in.Init == nil); err != nil {
			return err
		}
		if res != nil {
			if err := wk.download(bytesOf(res), b.res); err != nil {
				return err
			}
		}
		return wk.download(st.bytes()[:fitHead], state)
	})
	if err != nil {
		return nil, err
	}
	if st.Flag != 0 {
		return r.hostFit(ctx, in)
	}
	return &matting.BackgroundFit{Coef: st.Coef, Residuals: res}, nil
}

// hostFit is the fit on the host, from the analysis planes (downloaded
// first after AnalyseKept).
func (r *run) hostFit(ctx context.Context, in *matting.FitInput) (*matting.BackgroundFit, error) {
	if err := r.hostPlanes(ctx); err != nil {
		return nil, err
	}
	return matting.ReferenceFitBackground(r.w, r.h, r.hostLin, r.hostLab, in), nil
}

// run queues a whole fit of the m samples idx on state: the starting
// medians when fromMedians is set, then the rounds.
func (b *fitBufs) run(wk *worker, w, h, m int, idx, state, lin, lab devicePtr, fromMedians bool) error {
	if fromMedians {
		if err := b.initial(wk, m, idx, state, lin); err != nil {
			return err
		}
	}
	return b.fit(wk, w, h, m, idx, state, lin, lab)
}

// initial queues the starting model of the m samples idx: for each
// channel, the median of their linear light (fit_gather into the
// residuals' array, free until the first round, then the radix select) as
// its constant term (fit_init).
func (b *fitBufs) initial(wk *worker, m int, idx, state, lin devicePtr) error {
	vals := b.res // free until the first round's residuals
	for c := 0; c < 3; c++ {
		if err := wk.launch(kFitGather, int64(m), lin, idx, m, c, vals); err != nil {
			return err
		}
		if err := selectOn(wk, vals, m, state); err != nil {
			return err
		}
		if err := wk.launch(kFitInit, 1, c, state); err != nil {
			return err
		}
	}
	return nil
}

// fitBufs are the device arrays of one fit of m samples, from one
// scratch: the basis and the weighted basis (6 doubles a sample), the
// residuals and the normal equations' partial sums (fitEntries doubles a
// chunk).
type fitBufs struct {
	basis, wb, res, part devicePtr
}

// newFitBufs allocates the arrays for m samples from s.
func newFitBufs(s *scratch, m int) (*fitBufs, error) {
	b := &fitBufs{}
	for _, a := range []struct {
		p    *devicePtr
		size int
	}{{&b.basis, 8 * matting.PolyTerms * m}, {&b.wb, 8 * matting.PolyTerms * m}, {&b.res, 4 * m}, {&b.part, 8 * fitEntries * fitChunks(m)}} {
		d, err := s.alloc(uint64(max(a.size, 1)))
		if err != nil {
			return nil, err
		}
		*a.p = d
	}
	return b, nil
}

// fit queues the fit's kernels for the m samples idx of a w×h analysis
// image on state: matting.FitRounds rounds and the final residuals.
func (b *fitBufs) fit(wk *worker, w, h, m int, idx, state, lin, lab devicePtr) error {
	n := int64(m)
	if err := wk.launch(kFitBasis, n, idx, m, w, h, b.basis); err != nil {
		return err
	}
	for round := 0; round < matting.FitRounds; round++ {
		if err := wk.launch(kFitResiduals, n, lab, idx, b.basis, m, state, wk.table(tabCbrt), b.res); err != nil {
			return err
		}
		if err := selectOn(wk, b.res, m, state); err != nil {
			return err
		}
		if err := wk.launch(kFitWeights, n, b.res, b.basis, lin, idx, m, state, b.wb); err != nil {
			return err
		}
		if err := wk.launch(kFitPartial, int64(fitEntries*fitChunks(m)), b.basis, b.wb, lin, idx, m, b.part); err != nil {
			return err
		}
		if err := wk.launch(kFitSums, fitEntries, b.part, m, state); err != nil {
			return err
		}
		if err := wk.launch(kFitSolve, 1, state); err != nil {
			return err
		}
	}
	return wk.launch(kFitResiduals, n, lab, idx, b.basis, m, state, wk.table(tabCbrt), b.res)
}
