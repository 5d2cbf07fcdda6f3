package gpu

import (
	"context"
	"errors"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

var _ matting.Classifier = (*run)(nil)

// Classify runs general mode's mask clean-up of one classification round
// on the device (matting.Classifier): the kernels of kernels.cu's mask
// clean-up, in the order of matting's classify, on dist and plain and on
// the 3×3-smoothed L*a*b* plane of Analyse. The result is the CPU's bit
// for bit (matting.ReferenceClassify). When dist and plain are the
// slices the last BGDistance returned, or nil after BGDistanceKept, the
// device copies are read instead of uploading them; the mask stays on the
// device for SamplePlate.
func (r *run) Classify(ctx context.Context, dist, plain []float32, t float32) ([]bool, error) {
	if !r.analysisReady || r.closed {
		return nil, errors.New("gpu: Classify before Analyse or after Close")
	}
	n := r.w * r.h
	keptDist := kept(dist, r.hostDist) && kept(plain, r.hostPlain)
	if dist == nil && plain == nil {
		if !r.distKept {
			return nil, errors.New("gpu: Classify of kept distances without BGDistanceKept")
		}
		keptDist = true
	} else if len(dist) != n || len(plain) != n {
		return nil, errors.New("gpu: distances of the wrong size")
	}
	mask := r.results.boolSlice(n)
	r.hostMask = nil // overwritten below
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		if err := ensure(wk, &r.mask, uint64(n)); err != nil {
			return err
		}
		c, err := newCleanupOn(s, r.w, r.h, r.mask.p)
		if err != nil {
			return err
		}
		dd, dp := r.dist.p, r.plain.p
		if !keptDist {
			if dd, err = s.upload(bytesOf(dist)); err != nil {
				return err
			}
			if dp, err = s.upload(bytesOf(plain)); err != nil {
				return err
			}
		}
		smoothed, err := s.alloc(uint64(12 * n))
		if err != nil {
			return err
		}
		if err := wk.launch(kSmoothLab, int64(n), r.lab.p, r.w, r.h, smoothed); err != nil {
			return err
		}
		if err := c.classify(dd, dp, smoothed, t); err != nil {
			return err
		}
		// the kernels write 0 or 1: valid Go bools
		return wk.download(bytesOf(mask), c.mask)
	})
	if err != nil {
		return nil, err
	}
	r.hostMask = mask
	return mask, nil
}

// ccTile is CC_TILE of kernels.cu: the pixels one block of cc_flatten
// and cc_number counts and numbers.
const ccTile = 2048

// tiles is the number of ccTile tiles of n pixels.
func tiles(n int) int { return (n + ccTile - 1) / ccTile }

// perBlock is the element count to launch for one block per tile of n
// pixels (launch.go: a block per blockSize elements).
func perBlock(n int) int64 { return int64(tiles(n)) * blockSize }

// countPerThread is the pixels each thread of count_true adds.
const countPerThread = 4

// ccSeg is CC_SEG of kernels.cu: the pixels of a row one thread of
// cc_init and cc_stats walks.
const ccSeg = 32

// segments is the number of row segments of ccSeg pixels of a w×h plane.
func segments(w, h int) int64 { return int64((w+ccSeg-1)/ccSeg) * int64(h) }

// compBytes is the size of kernels.cu's struct comp (8 int32).
const compBytes = 32

// Offsets in cleanup.vals (int32 each).
const (
	valNComp   = 0  // the component count of the last labelling
	valLargest = 4  // keepComponents' largest strong component
	valCount   = 8  // the set pixels before fillHoles
	valsBytes  = 16 // with one spare
)

// cleanup is the device state of one classify on a w×h analysis image:
// the mask (one byte a pixel, 0 or 1) and the buffers of its steps, all
// from one scratch, so released with it (but for a mask given to
// newCleanupOn: Classify's is the run's, kept for SamplePlate).
type cleanup struct {
	wk   *worker
	w, h int
	n    int
	// mask is the working mask; kept the mask after the first
	// keepComponents; enter, hit and root the flood's enterable pixels,
	// hit components and union-find roots; fill and wide fillSlits'
	// planes.
	mask, kept, enter, hit, fill devicePtr
	root, wide                   devicePtr
	// parent, labels and comps are the last labelling's union-find
	// forest, component numbers (0 outside) and summaries (struct comp);
	// cnt holds the numbering's per-tile counts; vals the counters.
	parent, labels, comps, cnt, vals devicePtr
}

// newCleanupOn allocates a cleanup's buffers from s, working on the mask
// buffer mask (w·h bytes) when it is not 0, which then outlives s.
func newCleanupOn(s *scratch, w, h int, mask devicePtr) (*cleanup, error) {
	n := w * h
	c := &cleanup{wk: s.w, w: w, h: h, n: n, mask: mask}
	for _, b := range []struct {
		p    *devicePtr
		size int
	}{
		{&c.mask, n}, {&c.kept, n}, {&c.enter, n}, {&c.hit, n}, {&c.fill, n},
		{&c.root, 4 * n}, {&c.wide, 4 * n}, {&c.parent, 4 * n}, {&c.labels, 4 * n},
		{&c.comps, compBytes * n}, {&c.cnt, 4 * tiles(n)}, {&c.vals, valsBytes},
	} {
		if *b.p != 0 {
			continue // the given mask
		}
		p, err := s.alloc(uint64(max(b.size, 1)))
		if err != nil {
			return nil, err
		}
		*b.p = p
	}
	return c, nil
}

// f32bits passes a float threshold as an int kernel argument.
func f32bits(v float32) int32 { return int32(math.Float32bits(v)) }

// classify is matting's classify on dist and plain (device planes), with
// smoothed the 3×3-smoothed L*a*b* plane: the result is in c.mask.
func (c *cleanup) classify(dist, plain, smoothed devicePtr, t float32) error {
	if err := c.wk.launch(kMaskAbove, int64(c.n), dist, c.n, f32bits(t), c.mask); err != nil {
		return err
	}
	strong := 2 * t
	if err := c.keep(dist, strong, c.kept); err != nil {
		return err
	}
	if err := c.fillSlits(max(2, min(c.w, c.h)/25)); err != nil {
		return err
	}
	if err := c.fillHoles(); err != nil {
		return err
	}
	if err := c.flood(plain, smoothed, t); err != nil {
		return err
	}
	if err := c.keep(dist, strong, 0); err != nil {
		return err
	}
	return c.fillHoles()
}

// components labels the components of m == want (8-connected when eight,
// else 4-connected) into parent (roots), labels (numbers as matting's
// components gives them) and comps (with score's peak when score is not
// 0); vals[valNComp] is their count.
func (c *cleanup) components(m devicePtr, want, eight bool, score devicePtr) error {
	wk, n := c.wk, int64(c.n)
	segs := segments(c.w, c.h)
	steps := []struct {
		k    string
		n    int64
		args []any
	}{
		{kCCInit, segs, []any{m, want, c.w, c.h, devicePtr(0), 0, c.parent}},
		{kCCUnion, n, []any{m, want, c.w, c.h, eight, devicePtr(0), 0, c.parent}},
		{kCCFlatten, perBlock(c.n), []any{c.parent, c.n, c.cnt}},
		{kCCScan, blockSize, []any{c.cnt, tiles(c.n), c.vals + valNComp}},
		{kCCNumber, perBlock(c.n), []any{c.parent, c.n, c.cnt, c.w, c.h, c.labels, c.comps}},
		{kCCLabel, n, []any{c.parent, c.n, c.labels}},
		{kCCStats, segs, []any{c.labels, score, c.w, c.h, c.comps}},
	}
	for _, s := range steps {
		if err := wk.launch(s.k, s.n, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// keep is matting's keepComponents on the mask with score and strong;
// with kept (not 0), the result is copied there.
func (c *cleanup) keep(score devicePtr, strong float32, kept devicePtr) error {
	wk, n := c.wk, int64(c.n)
	if err := c.components(c.mask, true, true, score); err != nil {
		return err
	}
	if err := wk.launch(kFillI32, 1, c.vals+valLargest, 1, 0); err != nil {
		return err
	}
	if err := wk.launch(kKeepLargest, n, c.comps, c.vals+valNComp, f32bits(strong), c.vals+valLargest); err != nil {
		return err
	}
	minFloor := max(16, c.n/2000)
	return wk.launch(kKeepApply, n, c.mask, c.labels, c.comps, c.n, minFloor, c.vals+valLargest, f32bits(strong), kept)
}

// fillSlits is matting's fillSlits on the mask.
func (c *cleanup) fillSlits(maxGap int) error {
	wk, n := c.wk, int64(c.n)
	if err := c.components(c.mask, true, true, 0); err != nil {
		return err
	}
	if err := wk.launch(kFillU8, n, c.fill, c.n, 0); err != nil {
		return err
	}
	if err := wk.launch(kFillI32, n, c.wide, c.n, 0); err != nil {
		return err
	}
	if err := wk.launch(kSlitRows, n, c.labels, c.comps, c.w, c.h, maxGap, c.fill, c.wide); err != nil {
		return err
	}
	if err := wk.launch(kSlitCols, n, c.labels, c.comps, c.w, c.h, maxGap, c.fill); err != nil {
		return err
	}
	return wk.launch(kSlitWide, n, c.wide, c.w, c.h, c.fill, c.mask)
}

// fillHoles is matting's fillHoles on the mask with maxArea half its set
// pixels.
func (c *cleanup) fillHoles() error {
	wk, n := c.wk, int64(c.n)
	if err := wk.launch(kFillI32, 1, c.vals+valCount, 1, 0); err != nil {
		return err
	}
	if err := wk.launch(kCountTrue, int64((c.n+countPerThread-1)/countPerThread), c.mask, c.n, c.vals+valCount); err != nil {
		return err
	}
	if err := c.components(c.mask, false, false, 0); err != nil {
		return err
	}
	return wk.launch(kHolesApply, n, c.mask, c.labels, c.comps, c.n, c.vals+valCount)
}

// floodLimit is matting's floodLimit: the flood enters pixels of plain
// distance below floodLimit·t.
const floodLimit = 2

// flood is matting's floodSmooth on the mask, protecting the pixels set
// now but not in kept, on the smoothed L*a*b* plane.
func (c *cleanup) flood(plain, smoothed devicePtr, t float32) error {
	wk, n := c.wk, int64(c.n)
	// the CPU's float32 thresholds, computed as it does
	q := t / 4
	step2 := f32bits(q * q)
	limit := f32bits(floodLimit * t)
	if err := wk.launch(kFloodPrep, n, c.mask, c.kept, plain, c.n, limit, c.enter); err != nil {
		return err
	}
	if err := c.components(c.mask, false, false, 0); err != nil {
		return err
	}
	steps := []struct {
		k    string
		n    int64
		args []any
	}{
		{kCCInit, segments(c.w, c.h), []any{c.enter, true, c.w, c.h, smoothed, step2, c.root}},
		{kCCUnion, n, []any{c.enter, true, c.w, c.h, false, smoothed, step2, c.root}},
		{kCCFlatten, perBlock(c.n), []any{c.root, c.n, devicePtr(0)}},
		{kFillU8, n, []any{c.hit, c.n, 0}},
		{kFloodHit, n, []any{c.labels, c.comps, c.enter, smoothed, c.w, c.h, step2, c.root, c.hit}},
		{kFloodApply, n, []any{c.enter, c.root, c.hit, c.n, c.mask}},
	}
	for _, s := range steps {
		if err := wk.launch(s.k, s.n, s.args...); err != nil {
			return err
		}
	}
	return nil
}
