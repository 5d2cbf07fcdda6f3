//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// The background model's fit on the kernel emulator against matting's
// reference (bit for bit up to fitChunk samples, to the last bits beyond): fitBufs.fit on random planes (every order of
// samples, repeated samples, ties in the median, models clipped to black,
// a handful of samples, from the samples' medians or a given model) and whole FitBackground calls on the analysis of
// synthetic product shots, with and without a NaN in the planes.

// fitCase is one fit's input with the analysis planes.
type fitCase struct {
	name     string
	w, h     int
	lin, lab []float32
	in       *matting.FitInput
}

// genFitCase returns a w×h case of kind: "random" planes (L*a*b*
// unrelated to the linear light), "quantized" ones (four colours, so many
// residuals tie), "outliers" (a smooth backdrop, its L*a*b* from the
// linear light, with a fifth of the pixels far off); m samples in random
// order, some repeated, from init.
func genFitCase(kind string, w, h, m int, seed uint64, init *matting.BackgroundCoef) fitCase {
	r := rand.New(rand.NewPCG(seed, uint64(w)<<32|uint64(h)))
	n := w * h
	c := fitCase{name: fmt.Sprintf("%s %dx%d m %d seed %d", kind, w, h, m, seed), w: w, h: h,
		lin: make([]float32, 3*n), lab: make([]float32, 3*n), in: &matting.FitInput{Init: init, Residuals: true}}
	_, cb := matting.ColourTables()
	palette := [4][6]float32{{0.2, 0.3, 0.4, 55, 1, -8}, {0.9, 0.9, 0.9, 96, 0, 0}, {0.05, 0.01, 0, 8, 20, 10}, {0.5, 0.5, 0.1, 70, -5, 60}}
	for p := 0; p < n; p++ {
		x, y := float32(p%w)/float32(w), float32(p/w)/float32(h)
		for ch := 0; ch < 3; ch++ {
			switch kind {
			case "random":
				c.lin[3*p+ch] = float32(math.Ldexp(r.Float64(), -r.IntN(12))) * 1.2
				c.lab[3*p+ch] = []float32{100, 120, 120}[ch]*r.Float32() - []float32{0, 60, 60}[ch]
			case "quantized":
				k := r.IntN(4)
				c.lin[3*p+ch], c.lab[3*p+ch] = palette[k][ch], palette[k][3+ch]
			default: // outliers
				c.lin[3*p+ch] = 0.3 + 0.2*x*float32(ch+1) - 0.1*y*y + 0.01*r.Float32()
			}
		}
		if kind == "outliers" {
			L, A, B := labOf(cb, c.lin[3*p], c.lin[3*p+1], c.lin[3*p+2])
			if r.IntN(5) == 0 {
				L, A, B = L-40*r.Float32(), A+30, B-20
			}
			c.lab[3*p], c.lab[3*p+1], c.lab[3*p+2] = L, A, B
		}
	}
	for i := 0; i < m; i++ {
		p := int32(r.IntN(n))
		if i > 0 && r.IntN(8) == 0 {
			p = c.in.Samples[r.IntN(i)] // repeated
		}
		c.in.Samples = append(c.in.Samples, p)
	}
	return c
}

// labOf is matting's linToLab with its cube-root table cb: the L*a*b* of
// one linear colour (only plausible data for the fit here).
func labOf(cb []float32, r, g, b float32) (float32, float32, float32) {
	lookup := func(v float32) float32 {
		if v <= 0 {
			return cb[0]
		}
		if v >= 1 {
			return cb[matting.LUTSize]
		}
		p := v * matting.LUTSize
		i := int(p)
		return cb[i] + (cb[i+1]-cb[i])*(p-float32(i))
	}
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	fx, fy, fz := lookup(x), lookup(y), lookup(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// devFit runs fitBufs.fit on the emulator from uploaded planes and
// returns the state and the final residuals.
func devFit(t *testing.T, e *Engine, c fitCase) (*fitState, []float32) {
	m := len(c.in.Samples)
	st := &fitState{CutK: matting.TukeyCut, CutMin: matting.MinCut, K: int32(m / 2)}
	if c.in.Init != nil {
		st.Coef = *c.in.Init
	}
	res := make([]float32, m)
	err := e.dev.do(context.Background(), func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		var ptrs [3]devicePtr
		for i, b := range [][]byte{bytesOf(c.in.Samples), bytesOf(c.lin), bytesOf(c.lab)} {
			if ptrs[i], err = s.upload(b); err != nil {
				return err
			}
		}
		state, err := s.upload(st.bytes())
		if err != nil {
			return err
		}
		b, err := newFitBufs(s, m)
		if err != nil {
			return err
		}
		if err := b.run(wk, c.w, c.h, m, ptrs[0], state, ptrs[1], ptrs[2], c.in.Init == nil); err != nil {
			return err
		}
		if err := wk.download(bytesOf(res), b.res); err != nil {
			return err
		}
		return wk.download(st.bytes(), state)
	})
	require.NoError(t, err)
	return st, res
}

// requireSameFit checks a device fit of m samples against the reference:
// bit for bit up to fitChunk samples (one partial sum per entry, the CPU's order);
// beyond, the normal equations are summed in chunks, so the model may
// differ in the last bits: each coefficient within 1e-9 of the
// reference's (relative, at least 1e-9 absolute) and each residual
// within 1e-3 (L*a*b* units; the parity bars allow far more).
func requireSameFit(t *testing.T, name string, m int, want *matting.BackgroundFit, coef matting.BackgroundCoef, res []float32) {
	t.Helper()
	exact := m <= fitChunk
	for c := range coef {
		for k := range coef[c] {
			if exact {
				require.Equal(t, math.Float64bits(want.Coef[c][k]), math.Float64bits(coef[c][k]), "%s: coefficient %d of channel %d", name, k, c)
				continue
			}
			require.InDelta(t, want.Coef[c][k], coef[c][k], 1e-9*max(1, math.Abs(want.Coef[c][k])), "%s: coefficient %d of channel %d", name, k, c)
		}
	}
	require.Equal(t, len(want.Residuals), len(res), name)
	for i := range res {
		if exact {
			require.Equal(t, math.Float32bits(want.Residuals[i]), math.Float32bits(res[i]), "%s: residual %d", name, i)
			continue
		}
		require.InDelta(t, want.Residuals[i], res[i], 1e-3, "%s: residual %d", name, i)
	}
}

// TestEmulatedFitSteps checks fitBufs.fit against ReferenceFitBackground
// on random cases, and that a NaN L*a*b* value or infinite linear light
// at a sample sets the flag.
func TestEmulatedFitSteps(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	inits := map[string]*matting.BackgroundCoef{
		"medians": nil, // the samples' medians, as general mode starts
		"zero":    {},
		"flat":    {{0.3}, {0.4}, {0.5}},
		"black":   {{-5, 1, 1}, {-5}, {-5, 0, 0, 2}}, // clipped to 0 everywhere: residuals tie
		"tilt":    {{0.2, 0.1, -0.05, 0.01, 0.02, -0.03}, {0.5, -0.2}, {0.1, 0, 0.3}},
	}
	cases := 0
	for _, kind := range []string{"random", "quantized", "outliers"} {
		for _, sz := range [][3]int{{1, 1, 1}, {2, 1, 2}, {3, 3, 5}, {17, 9, 60}, {64, 48, 2000}, {200, 150, 20000}} {
			for name, init := range inits {
				c := genFitCase(kind, sz[0], sz[1], sz[2], uint64(cases+1), init)
				c.name += " init " + name
				st, res := devFit(t, e, c)
				require.Zero(t, st.Flag, c.name)
				requireSameFit(t, c.name, len(c.in.Samples), matting.ReferenceFitBackground(c.w, c.h, c.lin, c.lab, c.in), st.Coef, res)
				cases++
			}
		}
	}
	c := genFitCase("outliers", 30, 20, 300, 7, inits["flat"])
	c.lab[3*int(c.in.Samples[5])+1] = float32(math.NaN())
	st, _ := devFit(t, e, c)
	require.NotZero(t, st.Flag, "a NaN residual is flagged")
	c = genFitCase("outliers", 30, 20, 300, 7, inits["flat"])
	c.lin[3*int(c.in.Samples[9])+2] = float32(math.Inf(1))
	st, _ = devFit(t, e, c)
	require.NotZero(t, st.Flag, "linear light that is not finite is flagged")
	t.Logf("%d fits match the reference", cases)
}

// TestEmulatedFitBackground runs FitBackground on the analysis of
// synthetic product shots (factors 1 to 3, with and without the median),
// sampled along the frame and over a grid as general mode does, against
// ReferenceFitBackground on the planes Analyse returned; with a NaN put in
// both copies of the L*a*b* plane the host's refit is the reference's.
func TestEmulatedFitBackground(t *testing.T) {
	t.Parallel()
	d, e := emuEngineDriver(t)
	ctx := context.Background()
	for i, sz := range [][3]int{{1, 1, 1}, {5, 3, 1}, {120, 90, 2}, {400, 300, 1}, {640, 480, 3}} {
		W, H, f := sz[0], sz[1], sz[2]
		style := []synth.BackgroundStyle{synth.Plain, synth.Gradient}[i%2]
		img, _ := synth.Product(int64(i+1), max(W, 2), max(H, 2), style)
		img.Rect.Max.X, img.Rect.Max.Y = W, H // a 1×1 corner of it for the smallest
		sr, err := stages{e.dev}.Begin(ctx, img)
		require.NoError(t, err)
		run := sr.(*run)
		pl, err := run.Analyse(ctx, f, i%2 == 1)
		require.NoError(t, err)
		w, h := pl.W, pl.H
		var border, grid []int32
		band := max(2, min(w, h)/50)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if x < band || y < band || x >= w-band || y >= h-band {
					border = append(border, int32(y*w+x))
				}
				if x%3 == 1 && y%3 == 1 {
					grid = append(grid, int32(y*w+x))
				}
			}
		}
		if len(grid) == 0 {
			grid = border
		}
		name := fmt.Sprintf("%dx%d f %d", W, H, f)
		in := &matting.FitInput{Samples: border, Residuals: true} // from the medians
		fit, err := run.FitBackground(ctx, in)
		require.NoError(t, err, name)
		requireSameFit(t, name+" border", len(border), matting.ReferenceFitBackground(w, h, pl.Lin, pl.Lab, in), fit.Coef, fit.Residuals)
		in = &matting.FitInput{Samples: grid, Init: &fit.Coef, Residuals: i%2 == 0}
		fit, err = run.FitBackground(ctx, in)
		require.NoError(t, err, name)
		want := matting.ReferenceFitBackground(w, h, pl.Lin, pl.Lab, in)
		requireSameFit(t, name+" grid", len(grid), want, fit.Coef, fit.Residuals)

		// a NaN in the L*a*b* plane, on the host and the device alike
		k := 3*int(grid[len(grid)/2]) + 2
		pl.Lab[k] = float32(math.NaN())
		d.setFloat(run.lab.p, k, pl.Lab[k])
		fit, err = run.FitBackground(ctx, in)
		require.NoError(t, err, name)
		want = matting.ReferenceFitBackground(w, h, pl.Lin, pl.Lab, in)
		require.Equal(t, fmt.Sprint(want.Coef), fmt.Sprint(fit.Coef), "%s: the host's refit", name)
		require.Equal(t, fmt.Sprint(want.Residuals), fmt.Sprint(fit.Residuals), name)
		run.Close()
	}
}

// TestEmulatedFitBackgroundKept runs FitBackground after AnalyseKept: with
// a NaN put in the device's L*a*b* plane, the host's refit downloads the
// planes (the NaN with them) and equals the reference on them.
func TestEmulatedFitBackgroundKept(t *testing.T) {
	t.Parallel()
	d, e := emuEngineDriver(t)
	ctx := context.Background()
	img, _ := synth.Product(3, 160, 120, synth.Gradient)
	sr, err := stages{e.dev}.Begin(ctx, img)
	require.NoError(t, err)
	run := sr.(*run)
	defer run.Close()
	w, h, err := run.AnalyseKept(ctx, 1, false)
	require.NoError(t, err)
	require.Nil(t, run.hostLab)
	in := &matting.FitInput{Residuals: true}
	for p := 0; p < w*h; p += 7 {
		in.Samples = append(in.Samples, int32(p))
	}
	k := 3*int(in.Samples[10]) + 1
	d.setFloat(run.lab.p, k, float32(math.NaN()))
	fit, err := run.FitBackground(ctx, in)
	require.NoError(t, err)
	require.NotNil(t, run.hostLab, "the refit downloaded the planes")
	require.True(t, math.IsNaN(float64(run.hostLab[k])))
	want := matting.ReferenceFitBackground(w, h, run.hostLin, run.hostLab, in)
	require.Equal(t, fmt.Sprint(want.Coef), fmt.Sprint(fit.Coef))
	require.Equal(t, fmt.Sprint(want.Residuals), fmt.Sprint(fit.Residuals))
}
