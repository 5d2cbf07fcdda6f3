//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// The mask clean-up on the kernel emulator against matting's reference,
// step by step and bit for bit: components (labels, area, frame contact,
// peak, bounding box), keepComponents, fillSlits, fillHoles, the L*a*b*
// smoothing, the flood and the whole classify, on random masks and fields
// of every kind and size (classify_gen_test.go) and on the parity set's
// real analysis planes.

// compStat is a component's summary as compared: kernels.cu's struct comp
// without its padding.
type compStat struct {
	Area, Border int32
	Peak         uint32 // float bits
	X0, Y0       int32
	X1, Y1       int32
}

// labelling is one components result.
type labelling struct {
	Labels []int32
	Comps  []compStat
}

// snapshot is the state after one step, on either side.
type snapshot struct {
	step string
	mask []bool
	lab  []float32 // the smoothed plane, bits compared
	cc   *labelling
}

// cpuLabelling is matting's components with the bounding boxes added.
func cpuLabelling(mask []bool, w, h int, want, eight bool, score []float32) *labelling {
	labels, comps := matting.ReferenceComponents(mask, w, h, want, eight, score)
	out := &labelling{Labels: labels, Comps: make([]compStat, len(comps))}
	for i, c := range comps {
		out.Comps[i] = compStat{Area: int32(c.Area), Peak: math.Float32bits(c.Peak), X0: int32(w), Y0: int32(h), X1: -1, Y1: -1}
		if c.TouchesBorder {
			out.Comps[i].Border = 1
		}
	}
	for p, l := range labels {
		if l == 0 {
			continue
		}
		c := &out.Comps[l-1]
		x, y := int32(p%w), int32(p/w)
		c.X0, c.Y0, c.X1, c.Y1 = min(c.X0, x), min(c.Y0, y), max(c.X1, x), max(c.Y1, y)
	}
	return out
}

// devRecorder takes snapshots of a cleanup's state inside a job.
type devRecorder struct {
	c     *cleanup
	snaps []snapshot
}

func (d *devRecorder) mask(step string) error {
	m := make([]bool, d.c.n)
	d.snaps = append(d.snaps, snapshot{step: step, mask: m})
	return d.c.wk.download(bytesOf(m), d.c.mask)
}

func (d *devRecorder) labelling(step string) error {
	wk, c := d.c.wk, d.c
	vals := make([]int32, valsBytes/4)
	if err := wk.download(bytesOf(vals), c.vals); err != nil {
		return err
	}
	if err := wk.sync(); err != nil {
		return err
	}
	l := &labelling{Labels: make([]int32, c.n), Comps: []compStat{}}
	raw := make([]int32, 8*vals[valNComp/4])
	if err := wk.download(bytesOf(l.Labels), c.labels); err != nil {
		return err
	}
	if err := wk.download(bytesOf(raw), c.comps); err != nil {
		return err
	}
	if err := wk.sync(); err != nil {
		return err
	}
	for i := 0; i < len(raw); i += 8 {
		l.Comps = append(l.Comps, compStat{raw[i], raw[i+1], uint32(raw[i+2]), raw[i+3], raw[i+4], raw[i+5], raw[i+6]})
	}
	d.snaps = append(d.snaps, snapshot{step: step, cc: l})
	return nil
}

// onDevice runs fn in a job on e's device with a cleanup of w×h.
func onDevice(t *testing.T, e *Engine, w, h int, fn func(s *scratch, c *cleanup) error) {
	t.Helper()
	err := e.dev.do(context.Background(), func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		c, err := newCleanup(s, w, h)
		if err != nil {
			return err
		}
		return fn(s, c)
	})
	require.NoError(t, err)
}

// compareSnaps compares the device's snapshots with the CPU's, naming the
// first step that differs.
func compareSnaps(t *testing.T, name string, dev, cpu []snapshot) {
	t.Helper()
	require.Equal(t, len(cpu), len(dev), name)
	for i := range cpu {
		c, d := cpu[i], dev[i]
		require.Equal(t, c.step, d.step)
		switch {
		case c.cc != nil:
			require.Equal(t, c.cc.Labels, d.cc.Labels, "%s: %s: labels", name, c.step)
			require.Equal(t, c.cc.Comps, d.cc.Comps, "%s: %s: components", name, c.step)
		case c.lab != nil:
			require.Equal(t, bitsOf(c.lab), bitsOf(d.lab), "%s: %s", name, c.step)
		default:
			require.Equal(t, c.mask, d.mask, "%s: %s", name, c.step)
		}
	}
}

func bitsOf(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

// TestEmulatedComponents labels every mask kind and size, 8- and
// 4-connected, of set and of clear pixels, with a score holding zeros,
// negatives and NaNs.
func TestEmulatedComponents(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases := 0
	for _, sz := range testSizes {
		for _, kind := range maskKinds {
			for seed := uint64(1); seed <= 2; seed++ {
				w, h := sz[0], sz[1]
				mask := genMask(kind, w, h, seed)
				r := rand.New(rand.NewPCG(seed, 7))
				score := make([]float32, w*h)
				for i := range score {
					switch r.IntN(8) {
					case 0:
						score[i] = float32(math.NaN())
					case 1:
						score[i] = -r.Float32()
					case 2:
					default:
						score[i] = 40 * r.Float32()
					}
				}
				var cpu, dev []snapshot
				onDevice(t, e, w, h, func(s *scratch, c *cleanup) error {
					d := &devRecorder{c: c}
					if err := s.w.upload(c.mask, bytesOf(mask)); err != nil {
						return err
					}
					sc, err := s.upload(bytesOf(score))
					if err != nil {
						return err
					}
					for _, v := range []struct{ want, eight, score bool }{{true, true, true}, {true, false, false}, {false, true, false}, {false, false, true}} {
						var scoreDev devicePtr
						var scoreCPU []float32
						if v.score {
							scoreDev, scoreCPU = sc, score
						}
						step := fmt.Sprintf("want %v eight %v score %v", v.want, v.eight, v.score)
						cpu = append(cpu, snapshot{step: step, cc: cpuLabelling(mask, w, h, v.want, v.eight, scoreCPU)})
						if err := c.components(c.mask, v.want, v.eight, scoreDev); err != nil {
							return err
						}
						if err := d.labelling(step); err != nil {
							return err
						}
					}
					dev = d.snaps
					return nil
				})
				compareSnaps(t, fmt.Sprintf("%s %dx%d seed %d", kind, w, h, seed), dev, cpu)
				cases += len(cpu)
			}
		}
	}
	t.Logf("%d labellings identical to matting's components", cases)
}

// cpuSteps is classify on the CPU, step by step, with a snapshot after
// each step (the steps of checkSteps' device side).
func cpuSteps(f field) []snapshot {
	w, h, n := f.w, f.h, f.w*f.h
	var out []snapshot
	snap := func(step string, m []bool) { out = append(out, snapshot{step: step, mask: append([]bool(nil), m...)}) }
	smoothed := matting.ReferenceSmoothLab(f.lab, w, h)
	out = append(out, snapshot{step: "smooth", lab: smoothed})
	mask := make([]bool, n)
	for i, d := range f.dist {
		mask[i] = d > f.t
	}
	snap("threshold", mask)
	out = append(out, snapshot{step: "components", cc: cpuLabelling(mask, w, h, true, true, f.dist)})
	matting.ReferenceKeepComponents(mask, w, h, f.dist, 2*f.t)
	snap("keep", mask)
	kept := append([]bool(nil), mask...)
	matting.ReferenceFillSlits(mask, w, h, max(2, min(w, h)/25))
	snap("slits", mask)
	count := 0
	for _, v := range mask {
		if v {
			count++
		}
	}
	matting.ReferenceFillHoles(mask, w, h, count/2)
	snap("holes", mask)
	out = append(out, snapshot{step: "background", cc: cpuLabelling(mask, w, h, false, false, nil)})
	protected := make([]bool, n)
	for i := range protected {
		protected[i] = mask[i] && !kept[i]
	}
	matting.ReferenceFloodSmooth(mask, w, h, smoothed, f.plain, f.t, protected)
	snap("flood", mask)
	matting.ReferenceKeepComponents(mask, w, h, f.dist, 2*f.t)
	snap("keep2", mask)
	count = 0
	for _, v := range mask {
		if v {
			count++
		}
	}
	matting.ReferenceFillHoles(mask, w, h, count/2)
	snap("holes2", mask)
	snap("classify", matting.ReferenceClassify(w, h, f.lab, f.dist, f.plain, f.t))
	return out
}

// devSteps is cpuSteps on the device: each step of cleanup.classify, then
// cleanup.classify itself from the start.
func devSteps(t *testing.T, e *Engine, f field) []snapshot {
	var snaps []snapshot
	n := f.w * f.h
	onDevice(t, e, f.w, f.h, func(s *scratch, c *cleanup) error {
		d := &devRecorder{c: c}
		wk := s.w
		lab, err := s.upload(bytesOf(f.lab))
		if err != nil {
			return err
		}
		dist, err := s.upload(bytesOf(f.dist))
		if err != nil {
			return err
		}
		plain, err := s.upload(bytesOf(f.plain))
		if err != nil {
			return err
		}
		smoothed, err := s.alloc(uint64(12 * n))
		if err != nil {
			return err
		}
		sm := make([]float32, 3*n)
		d.snaps = append(d.snaps, snapshot{step: "smooth", lab: sm})
		strong := 2 * f.t
		steps := []struct {
			name string
			run  func() error
			cc   bool
		}{
			{"smooth", func() error {
				if err := wk.launch(kSmoothLab, int64(n), lab, f.w, f.h, smoothed); err != nil {
					return err
				}
				return wk.download(bytesOf(sm), smoothed)
			}, false},
			{"threshold", func() error { return wk.launch(kMaskAbove, int64(n), dist, n, f32bits(f.t), c.mask) }, false},
			{"components", func() error { return c.components(c.mask, true, true, dist) }, true},
			{"keep", func() error { return c.keep(dist, strong, c.kept) }, false},
			{"slits", func() error { return c.fillSlits(max(2, min(f.w, f.h)/25)) }, false},
			{"holes", c.fillHoles, false},
			{"background", func() error { return c.components(c.mask, false, false, 0) }, true},
			{"flood", func() error { return c.flood(plain, smoothed, f.t) }, false},
			{"keep2", func() error { return c.keep(dist, strong, 0) }, false},
			{"holes2", c.fillHoles, false},
			{"classify", func() error { return c.classify(dist, plain, smoothed, f.t) }, false},
		}
		for _, st := range steps {
			if err := st.run(); err != nil {
				return err
			}
			var err error
			switch {
			case st.name == "smooth":
			case st.cc:
				err = d.labelling(st.name)
			default:
				err = d.mask(st.name)
			}
			if err != nil {
				return err
			}
		}
		snaps = d.snaps
		return nil
	})
	return snaps
}

// TestEmulatedClassifySteps runs classify step by step on random fields
// of every kind and size, comparing each step with the CPU's.
func TestEmulatedClassifySteps(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases, flooded, slit := 0, 0, 0
	for _, sz := range testSizes {
		for _, kind := range maskKinds {
			for seed := uint64(1); seed <= 2; seed++ {
				f := genField(kind, sz[0], sz[1], seed)
				cpu := cpuSteps(f)
				compareSnaps(t, fmt.Sprintf("%s %dx%d seed %d", kind, f.w, f.h, seed), devSteps(t, e, f), cpu)
				cases++
				if !equalMasks(stepMask(cpu, "holes"), stepMask(cpu, "flood")) {
					flooded++
				}
				if !equalMasks(stepMask(cpu, "keep"), stepMask(cpu, "slits")) {
					slit++
				}
			}
		}
	}
	t.Logf("%d fields identical at every step; the flood changed %d, fillSlits %d", cases, flooded, slit)
	assert.Positive(t, flooded, "some fields exercise the flood")
	assert.Positive(t, slit, "some fields exercise fillSlits")
}

func stepMask(s []snapshot, step string) []bool {
	for _, v := range s {
		if v.step == step {
			return v.mask
		}
	}
	panic("no step " + step)
}

func equalMasks(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmulatedFloodTies floods masks whose colour steps equal the flood's
// limit (t/4)² exactly, and whose plain distances are 2t exactly or NaN,
// on a given plane (not smoothed, so the ties stay exact).
func TestEmulatedFloodTies(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	const thr = 8 // (t/4)² = 4: L* steps of 2 are exactly at the limit
	cases, changed := 0, 0
	for _, sz := range testSizes {
		for seed := uint64(1); seed <= 6; seed++ {
			w, h, n := sz[0], sz[1], sz[0]*sz[1]
			r := rand.New(rand.NewPCG(seed, 11))
			mask := genMask([]string{"blobs", "noise", "border", "spiral", "channels", "lines"}[seed-1], w, h, seed)
			kept, plain, lab := make([]bool, n), make([]float32, n), make([]float32, 3*n)
			for p := range mask {
				kept[p] = r.IntN(8) != 0
				plain[p] = []float32{thr, 2 * thr, 2*thr - 0.5, float32(math.NaN()), 3 * thr}[r.IntN(5)]
				lab[3*p] = float32(2 * r.IntN(3))
				lab[3*p+1] = float32(r.IntN(2))
			}
			want := append([]bool(nil), mask...)
			protected := make([]bool, n)
			for i := range protected {
				protected[i] = want[i] && !kept[i]
			}
			matting.ReferenceFloodSmooth(want, w, h, lab, plain, thr, protected)
			got := make([]bool, n)
			onDevice(t, e, w, h, func(s *scratch, c *cleanup) error {
				if err := s.w.upload(c.mask, bytesOf(mask)); err != nil {
					return err
				}
				if err := s.w.upload(c.kept, bytesOf(kept)); err != nil {
					return err
				}
				pl, err := s.upload(bytesOf(plain))
				if err != nil {
					return err
				}
				lb, err := s.upload(bytesOf(lab))
				if err != nil {
					return err
				}
				if err := c.flood(pl, lb, thr); err != nil {
					return err
				}
				return s.w.download(bytesOf(got), c.mask)
			})
			require.Equal(t, want, got, "%dx%d seed %d", w, h, seed)
			cases++
			if !equalMasks(mask, want) {
				changed++
			}
		}
	}
	t.Logf("%d floods with ties identical to matting's floodSmooth (%d changed the mask)", cases, changed)
	assert.Positive(t, changed)
}

// runMaskStep runs one mask step on the device from mask and returns the
// result.
func runMaskStep(t *testing.T, e *Engine, w, h int, mask []bool, step func(c *cleanup) error) []bool {
	got := make([]bool, w*h)
	onDevice(t, e, w, h, func(s *scratch, c *cleanup) error {
		if err := s.w.upload(c.mask, bytesOf(mask)); err != nil {
			return err
		}
		if err := step(c); err != nil {
			return err
		}
		return s.w.download(bytesOf(got), c.mask)
	})
	return got
}

// TestEmulatedFillSlits runs fillSlits alone on many small masks with
// channels, slits and slivers and every gap limit from 1 to 6, so that
// the wide candidates' acceptance meets its boundaries.
func TestEmulatedFillSlits(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases, changed := 0, 0
	for seed := uint64(1); seed <= 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		w, h := 8+r.IntN(90), 8+r.IntN(90)
		mask := genMask([]string{"channels", "slits", "blobs", "lines"}[seed%4], w, h, seed)
		maxGap := 1 + r.IntN(6)
		want := append([]bool(nil), mask...)
		matting.ReferenceFillSlits(want, w, h, maxGap)
		got := runMaskStep(t, e, w, h, mask, func(c *cleanup) error { return c.fillSlits(maxGap) })
		require.Equal(t, want, got, "%dx%d seed %d maxGap %d", w, h, seed, maxGap)
		cases++
		if !equalMasks(mask, want) {
			changed++
		}
	}
	t.Logf("%d masks identical to matting's fillSlits (%d changed)", cases, changed)
	assert.Positive(t, changed)
}

// TestEmulatedFillHoles fills the holes of rings, some whose hole has
// exactly half the set pixels (the limit, inclusive), among random
// blobs.
func TestEmulatedFillHoles(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	cases, changed := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		w, h := 6+r.IntN(60), 6+r.IntN(60)
		mask := make([]bool, w*h)
		if seed%3 == 0 {
			mask = genMask("blobs", w, h, seed)
		}
		// a 4×6 ring: 16 set pixels around a hole of 8, the limit
		// when nothing else is set
		for k := 0; k < 1+r.IntN(3); k++ {
			rw, rh := 4, 6
			if k > 0 {
				rw, rh = 3+r.IntN(8), 3+r.IntN(8)
			}
			x0, y0 := r.IntN(w), r.IntN(h)
			for y := y0; y < y0+rh && y < h; y++ {
				for x := x0; x < x0+rw && x < w; x++ {
					mask[y*w+x] = x == x0 || y == y0 || x == x0+rw-1 || y == y0+rh-1
				}
			}
		}
		want := append([]bool(nil), mask...)
		count := 0
		for _, v := range mask {
			if v {
				count++
			}
		}
		matting.ReferenceFillHoles(want, w, h, count/2)
		got := runMaskStep(t, e, w, h, mask, (*cleanup).fillHoles)
		require.Equal(t, want, got, "%dx%d seed %d", w, h, seed)
		cases++
		if !equalMasks(mask, want) {
			changed++
		}
	}
	t.Logf("%d masks identical to matting's fillHoles (%d changed)", cases, changed)
	assert.Positive(t, changed)
}

// newCleanup allocates a cleanup's buffers, its mask included, from s.
func newCleanup(s *scratch, w, h int) (*cleanup, error) { return newCleanupOn(s, w, h, 0) }
