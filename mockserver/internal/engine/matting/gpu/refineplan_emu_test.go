//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// The refinement's plan on the kernel emulator against matting's
// reference, step by step and bit for bit: the label changes, the band,
// its surroundings, the confident pixels, the entries, every cell's
// statistics and the flag of a cell needing the image's means, on random
// masks of every kind and size and on a range of radii; and whole
// PlanRefine calls of a run, the mask kept or uploaded, with and without
// cells that need the image's means.

// planCase is one plan's input: the analysis size and raw sRGB plane, the
// coarse mask and the radii.
type planCase struct {
	w, h          int
	raw           []float32
	mask          []bool
	rBand, rStats int
}

// genPlanCase returns a case whose mask is of the kind and whose raw plane
// mixes random colours with a few repeated ones (so that some windows
// have a variance that rounds to zero or below, clamped as on the CPU).
func genPlanCase(kind string, w, h int, seed uint64, rBand, rStats int) planCase {
	r := rand.New(rand.NewPCG(seed^0x9e3779b9, uint64(w)<<32|uint64(h)))
	c := planCase{w: w, h: h, raw: make([]float32, 3*w*h), mask: genMask(kind, w, h, seed), rBand: rBand, rStats: rStats}
	palette := [][3]float32{{0.1, 0.2, 0.3}, {1, 1, 1}, {0, 0, 0}, {0.7, 0.3, 0.05}}
	for p := 0; p < w*h; p++ {
		if r.IntN(3) == 0 {
			copy(c.raw[3*p:3*p+3], palette[r.IntN(len(palette))][:])
			continue
		}
		for k := 0; k < 3; k++ {
			c.raw[3*p+k] = r.Float32()
		}
	}
	return c
}

// planPlanes is a plan as the device lays it out: every plane per cell,
// the entries being the cells' own indices and the statistics dense.
type planPlanes struct {
	edges, band, around, confFg, confBg []bool
	index                               []int32
	stats                               []float32
	global                              bool
}

// devPlanPlanes runs planBufs.plan and finish on e from uploaded inputs
// (refine_edges also into a buffer of its own, as plan overwrites its
// result) and downloads every plane; global is what finish reports.
func devPlanPlanes(t *testing.T, e *Engine, c planCase) planPlanes {
	n := c.w * c.h
	out := planPlanes{edges: make([]bool, n), band: make([]bool, n), around: make([]bool, n),
		confFg: make([]bool, n), confBg: make([]bool, n), index: make([]int32, n), stats: make([]float32, matting.StatsStride*n)}
	conf := make([]uint8, n)
	rBand, rStats := planRadii(c.w, c.h, c.rBand, c.rStats)
	err := e.dev.do(context.Background(), func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		mask, err := s.upload(bytesOf(c.mask))
		if err != nil {
			return err
		}
		raw, err := s.upload(bytesOf(c.raw))
		if err != nil {
			return err
		}
		edges, err := s.alloc(uint64(max(n, 1)))
		if err != nil {
			return err
		}
		if err := wk.launch(kRefineEdges, int64(n), mask, c.w, c.h, edges); err != nil {
			return err
		}
		p, err := newPlanBufs(s, n)
		if err != nil {
			return err
		}
		if err := p.plan(wk, c.w, c.h, mask, raw, rBand, rStats); err != nil {
			return err
		}
		if out.global, err = p.finish(s, n, func() ([]float32, error) { return c.raw, nil }); err != nil {
			return err
		}
		for _, d := range []struct {
			dst []byte
			src devicePtr
		}{{bytesOf(out.edges), edges}, {bytesOf(out.band), p.band}, {bytesOf(out.around), p.around()}, {conf, p.conf},
			{bytesOf(out.index), p.index}, {bytesOf(out.stats), p.stats}} {
			if err := wk.download(d.dst, d.src); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	for i, k := range conf {
		require.LessOrEqual(t, k, uint8(2))
		out.confFg[i], out.confBg[i] = k == 1, k == 2
	}
	return out
}

// cpuPlan is the reference plan of c, its steps checked against each
// other: the band is the label changes dilated, around the band dilated
// by one.
func cpuPlan(t *testing.T, c planCase) (edges []bool, ref *matting.RefinePlan) {
	edges = matting.ReferenceBoundaryEdges(c.mask, c.w, c.h)
	ref = matting.ReferenceRefinePlan(c.w, c.h, c.raw, c.mask, c.rBand, c.rStats)
	require.Equal(t, matting.ReferenceDilate(edges, c.w, c.h, c.rBand), ref.Band)
	require.Equal(t, matting.ReferenceDilate(ref.Band, c.w, c.h, 1), ref.Around)
	return edges, ref
}

// comparePlan compares the device's plan with the CPU's, naming the first
// step that differs. It reports whether any cell had statistics.
func comparePlan(t *testing.T, name string, dev planPlanes, edges []bool, ref *matting.RefinePlan) bool {
	t.Helper()
	require.Equal(t, edges, dev.edges, "%s: label changes", name)
	require.Equal(t, ref.Band, dev.band, "%s: band", name)
	require.Equal(t, ref.Around, dev.around, "%s: around", name)
	require.Equal(t, ref.ConfFg, dev.confFg, "%s: confident foreground", name)
	require.Equal(t, ref.ConfBg, dev.confBg, "%s: confident background", name)
	require.Equal(t, ref.Global, dev.global, "%s: image means flag", name)
	cells := 0
	for p, k := range ref.Index {
		if k < 0 {
			require.Equal(t, int32(-1), dev.index[p], "%s: entry of cell %d", name, p)
			continue
		}
		require.Equal(t, int32(p), dev.index[p], "%s: entry of cell %d", name, p)
		cells++
		const s = matting.StatsStride
		require.Equal(t, bitsOf(ref.Stats[s*int(k):s*int(k)+s]), bitsOf(dev.stats[s*p:s*p+s]),
			"%s: statistics of cell %d", name, p)
	}
	return cells > 0
}

// TestEmulatedPlanSteps runs the plan's kernels on random inputs of every
// mask kind and size, with band radii from none (and negative) to beyond
// the image and statistics radii from 1 to beyond the image, comparing
// each step with the CPU's.
func TestEmulatedPlanSteps(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases, withStats, global := 0, 0, 0
	for _, sz := range testSizes {
		for ki, kind := range maskKinds {
			for seed := uint64(1); seed <= 2; seed++ {
				w, h := sz[0], sz[1]
				k := ki*2 + int(seed)
				rBand := []int{1, -1, 0, 1, 2, 3, max(w, h) + 2}[k%7]
				rStats := []int{5, 1, 2, 3, 5, 7, max(w, h) + 3}[k%7]
				c := genPlanCase(kind, w, h, seed, rBand, rStats)
				name := fmt.Sprintf("%s %dx%d seed %d radii %d %d", kind, w, h, seed, rBand, rStats)
				edges, ref := cpuPlan(t, c)
				if comparePlan(t, name, devPlanPlanes(t, e, c), edges, ref) {
					withStats++
				}
				if ref.Global {
					global++
				}
				cases++
			}
		}
	}
	t.Logf("%d inputs identical at every step (%d with statistics compared bit for bit, %d needing the image's means)", cases, withStats, global)
	assert.Greater(t, withStats, cases/2)
	assert.Positive(t, global)
	assert.Less(t, global, withStats, "some with statistics and without the means")
}

// refineInputOf is the RefineInput the pipeline uploads for a plan made
// on the CPU.
func refineInputOf(w, h, f int, mask []bool, ref *matting.RefinePlan, spill bool) *matting.RefineInput {
	in := &matting.RefineInput{W: w, H: h, Factor: f, Mask: make([]uint8, w*h), Band: make([]uint8, w*h),
		Index: ref.Index, Stats: ref.Stats, Spill: spill}
	for i := range mask {
		if mask[i] {
			in.Mask[i] = 1
		}
		if ref.Band[i] {
			in.Band[i] = 1
		}
	}
	return in
}

// randomImage returns a W×H image of random pixels.
func randomImage(W, H int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	r := rand.New(rand.NewPCG(uint64(W), uint64(H)))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	return img
}

// TestEmulatedPlanRefine runs PlanRefine itself on runs of random images
// (their raw plane from Analyse, at factors 1 to 3, with and without the
// median), with the mask uploaded and kept from the round's Classify: its
// images equal Refine's on the CPU's plan byte for byte, whether or not
// some cell needs the image's means (a checkerboard mask has no confident
// pixel at all; the classified ones some far from the band); bad inputs
// are errors.
func TestEmulatedPlanRefine(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	global := 0
	for i, sz := range [][3]int{{1, 1, 1}, {2, 67, 1}, {130, 3, 2}, {211, 157, 3}, {400, 300, 2}} {
		W, H, f := sz[0], sz[1], sz[2]
		img := randomImage(W, H)
		sr, err := stages{e.dev}.Begin(ctx, img)
		require.NoError(t, err)
		run := sr.(*run)
		_, _, err = run.PlanRefine(ctx, &matting.RefinePlanInput{Mask: make([]bool, 1), StatsRadius: 5})
		require.ErrorContains(t, err, "before Analyse")
		pl, err := run.Analyse(ctx, f, i%2 == 1)
		require.NoError(t, err)
		w, h := pl.W, pl.H
		rBand, rStats := matting.RefineRadii(f)
		check := func(name string, mask []bool, spill bool) {
			ref := matting.ReferenceRefinePlan(w, h, pl.Raw, mask, rBand, rStats)
			if ref.Global {
				global++
			}
			alpha, fg, err := run.PlanRefine(ctx, &matting.RefinePlanInput{Mask: mask, BandRadius: rBand, StatsRadius: rStats, Spill: spill})
			require.NoError(t, err, name)
			wa, wf, err := run.Refine(ctx, refineInputOf(w, h, f, mask, ref, spill))
			require.NoError(t, err, name)
			require.Equal(t, wa.Pix, alpha.Pix, "%s: alpha", name)
			require.Equal(t, spill, fg != nil, name)
			if spill {
				require.Equal(t, wf.Pix, fg.Pix, "%s: foreground", name)
			}
		}
		blobs := genMask("blobs", w, h, uint64(i+1))
		check(fmt.Sprintf("%dx%d f %d blobs", W, H, f), blobs, i%2 == 0)
		check(fmt.Sprintf("%dx%d f %d empty", W, H, f), make([]bool, w*h), true)
		// every cell a label change: no confident pixel anywhere
		check(fmt.Sprintf("%dx%d f %d checker", W, H, f), genMask("checker", w, h, 1), false)
		// a round: Classify keeps its mask, which PlanRefine reads
		gw, gh := (w+3)/4+1, (h+3)/4+1
		grid := make([]float32, 3*gw*gh)
		for k := range grid {
			grid[k] = []float32{60, 2, -3}[k%3]
		}
		dist, plain, _, err := run.BGDistance(ctx, grid, gw, gh, 4)
		require.NoError(t, err)
		mask, err := run.Classify(ctx, dist, plain, 8)
		require.NoError(t, err)
		require.True(t, kept(mask, run.hostMask))
		check(fmt.Sprintf("%dx%d f %d classified, kept", W, H, f), mask, true)
		check(fmt.Sprintf("%dx%d f %d classified, uploaded", W, H, f), append([]bool(nil), mask...), true)

		for _, bad := range []*matting.RefinePlanInput{nil, {Mask: mask[1:], StatsRadius: 5}, {Mask: mask, StatsRadius: 0}} {
			_, _, err := run.PlanRefine(ctx, bad)
			assert.Error(t, err)
		}
		run.Close()
		_, _, err = run.PlanRefine(ctx, &matting.RefinePlanInput{Mask: mask, StatsRadius: 5})
		assert.ErrorContains(t, err, "after Close")
	}
	assert.Positive(t, global, "some plans need the image's means")
}

// planRec is the engine's stages with one removal's raw plane and
// PlanRefine calls recorded.
type planRec struct {
	inner stages
	raw   []float32
	w, h  int
	calls []planCall
}

// planCall is one recorded PlanRefine: a copy of its input and whether
// the device read its kept mask.
type planCall struct {
	c    planCase
	kept bool
}

type planRecRun struct {
	*tappedRun
	rec *planRec
}

func (s *planRec) Begin(ctx context.Context, img *image.NRGBA) (matting.StageRun, error) {
	r, err := s.inner.Begin(ctx, img)
	if err != nil {
		return nil, err
	}
	return &planRecRun{rec: s, tappedRun: &tappedRun{run: r.(*run), onPlanes: func(p *matting.Planes) {
		s.raw, s.w, s.h = append([]float32(nil), p.Raw...), p.W, p.H
	}}}, nil
}

func (r *planRecRun) PlanRefine(ctx context.Context, in *matting.RefinePlanInput) (*image.Alpha, *image.NRGBA, error) {
	c := planCase{w: r.rec.w, h: r.rec.h, raw: r.rec.raw, mask: append([]bool(nil), in.Mask...), rBand: in.BandRadius, rStats: in.StatsRadius}
	keptMask := kept(in.Mask, r.hostMask)
	alpha, fg, err := r.run.PlanRefine(ctx, in)
	if err == nil {
		r.rec.calls = append(r.rec.calls, planCall{c: c, kept: keptMask})
	}
	return alpha, fg, err
}

// TestEmulatedRefinePlanParity runs the parity set through the engine on
// the emulator with its PlanRefine calls recorded: the mattes and
// foregrounds equal the CPU engine's (|Δ| 0); general mode's PlanRefine
// read the mask kept from the last Classify; every plan equals matting's
// on the same inputs step by step, including those where cells need the
// image's means (about half of the portraits).
func TestEmulatedRefinePlanParity(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	ctx := context.Background()
	global := 0
	for _, c := range parityCases() {
		rec := &planRec{inner: stages{e.dev}}
		want, err := cpuMatte(c)
		require.NoError(t, err)
		got, err := matting.NewAccelerated(rec).RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err)
		assertSameMatte(t, c.name, want, got)
		require.Len(t, rec.calls, 1, c.name)
		call := rec.calls[0]
		if c.o.Mode == "" || c.o.Mode == matting.ModeGeneral {
			assert.True(t, call.kept, "%s: the mask read on the device", c.name)
		}
		edges, ref := cpuPlan(t, call.c)
		comparePlan(t, c.name, devPlanPlanes(t, e, call.c), edges, ref)
		if ref.Global {
			global++
		}
	}
	assert.Positive(t, global)
	t.Logf("%d removals planned and refined on the device (%d needing the image's means), every plan identical to the CPU's step by step", len(parityCases()), global)
}

// TestPlanRefineOnStubDriver runs the plan's steps through the libcuda
// binding on the stub driver (each kernel's parameters read from
// cuLaunchKernel's array) on random inputs, and whole removals with their
// plans, against the CPU.
func TestPlanRefineOnStubDriver(t *testing.T) {
	t.Parallel()
	path := stubLibrary(t)
	drv, err := openDriverAt(path)
	require.NoError(t, err)
	e, err := newEngine(drv, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	cases := 0
	for _, sz := range [][2]int{{1, 29}, {23, 17}, {120, 90}} {
		for i, kind := range maskKinds {
			c := genPlanCase(kind, sz[0], sz[1], 3, i%3, 1+i%6)
			edges, ref := cpuPlan(t, c)
			comparePlan(t, fmt.Sprintf("%s %dx%d", kind, sz[0], sz[1]), devPlanPlanes(t, e, c), edges, ref)
			cases++
		}
	}
	for _, c := range parityCases()[:4] {
		rec := &planRec{inner: stages{e.dev}}
		want, err := cpuMatte(c)
		require.NoError(t, err)
		got, err := matting.NewAccelerated(rec).RemoveBackground(context.Background(), c.img, c.o)
		require.NoError(t, err)
		require.Equal(t, want.Alpha.Pix, got.Alpha.Pix, c.name)
		require.Len(t, rec.calls, 1)
		edges, ref := cpuPlan(t, rec.calls[0].c)
		comparePlan(t, c.name, devPlanPlanes(t, e, rec.calls[0].c), edges, ref)
	}
	t.Logf("%d inputs step by step and 4 removals identical to the CPU", cases)
}
