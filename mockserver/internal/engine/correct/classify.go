package correct

import (
	"image"
	"slices"
)

// Non-photo (clipart) detection works on a point-sampled grid of at most
// clipGrid×clipGrid pixels; point samples, not averages, so flat areas keep
// their exact colours and edges stay hard.
const (
	clipGrid = 256
	// Adjacent grid samples whose channel differences sum to at most
	// flatDiff are "flat"; above hardDiff the step is a hard edge; in
	// between a gentle transition (shading, texture).
	flatDiff = 12
	hardDiff = 40
	// Clipart rules (doc.go): a palette of at most tinyPalette exact
	// colours; or at least clipFlat flat pairs, at least clipMinEdges hard
	// pairs, at most clipGentle of the non-flat pairs gentle, and at least
	// clipCoverage of the samples in the paletteBins most common coarse
	// colours (5 bits per channel).
	tinyPalette  = 64
	clipFlat     = 0.60
	clipMinEdges = 0.005
	clipGentle   = 0.35
	clipCoverage = 0.90
	paletteBins  = 32
	// Legacy rule: also skip monochrome images, where at least monoShare of
	// the samples have channel spread at most monoSpread.
	monoShare  = 0.99
	monoSpread = 8
)

// gridStats are the clipart measurements of an image.
type gridStats struct {
	distinct int     // distinct colours among the samples
	coverage float64 // share of samples in the paletteBins commonest coarse colours
	flat     float64 // share of adjacent pairs that are flat
	hard     float64 // share of adjacent pairs that are hard edges
	gentle   float64 // share of adjacent pairs that are gentle
	mono     float64 // share of samples with channel spread ≤ monoSpread
}

func measureGrid(img *image.NRGBA) gridStats {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	gw, gh := min(W, clipGrid), min(H, clipGrid)
	samples := make([][3]int32, gw*gh)
	keys := make([]uint32, gw*gh) // 24-bit colours, 1<<24 for transparent
	var st gridStats
	var mono int
	for j := 0; j < gh; j++ {
		y := (2*j + 1) * H / (2 * gh)
		row := img.Pix[y*img.Stride:]
		for i := 0; i < gw; i++ {
			x := (2*i + 1) * W / (2 * gw)
			p := row[x*4 : x*4+4]
			r, g, b := int32(p[0]), int32(p[1]), int32(p[2])
			k := j*gw + i
			samples[k] = [3]int32{r, g, b}
			keys[k] = uint32(r)<<16 | uint32(g)<<8 | uint32(b)
			if p[3] == 0 {
				keys[k] = 1 << 24
			}
			if max(r, g, b)-min(r, g, b) <= monoSpread {
				mono++
			}
		}
	}
	var flat, gentle, hard int
	pair := func(a, b [3]int32) {
		switch d := absDiff3(a[0], a[1], a[2], b[0], b[1], b[2]); {
		case d <= flatDiff:
			flat++
		case d > hardDiff:
			hard++
		default:
			gentle++
		}
	}
	for j := 0; j < gh; j++ {
		for i := 0; i < gw; i++ {
			k := j*gw + i
			if i+1 < gw {
				pair(samples[k], samples[k+1])
			}
			if j+1 < gh {
				pair(samples[k], samples[k+gw])
			}
		}
	}
	st.distinct = countRuns(keys, nil)
	for i, k := range keys {
		if k < 1<<24 {
			keys[i] = k>>19<<10 | (k>>11&0x1f)<<5 | (k >> 3 & 0x1f)
		}
	}
	runs := make([]int, 0, 1024)
	countRuns(keys, &runs)
	slices.SortFunc(runs, func(a, b int) int { return b - a })
	var top int
	for _, n := range runs[:min(len(runs), paletteBins)] {
		top += n
	}
	st.coverage = float64(top) / float64(len(keys))
	if n := float64(flat + gentle + hard); n > 0 {
		st.flat, st.gentle, st.hard = float64(flat)/n, float64(gentle)/n, float64(hard)/n
	}
	st.mono = float64(mono) / float64(len(samples))
	return st
}

// countRuns sorts keys and returns the number of distinct values; with
// runs non-nil it also appends each value's count.
func countRuns(keys []uint32, runs *[]int) int {
	slices.Sort(keys)
	distinct := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		distinct++
		if runs != nil {
			*runs = append(*runs, j-i)
		}
		i = j
	}
	return distinct
}

func (st gridStats) clipart() bool {
	if st.distinct <= tinyPalette {
		return true
	}
	return st.flat >= clipFlat && st.hard >= clipMinEdges &&
		st.gentle/(st.gentle+st.hard) <= clipGentle && st.coverage >= clipCoverage
}

// IsClipart reports whether img looks like a computer graphic rather than
// a photo (skip=clipart): a tiny palette, or large flat regions (equal to
// within a few levels) separated by hard edges, with little shading in
// between and a few colours covering almost everything. Graphics with
// smooth gradients read as photos. Deterministic; false for an empty image.
func IsClipart(img *image.NRGBA) bool {
	if img == nil || img.Rect.Empty() {
		return false
	}
	return measureGrid(img).clipart()
}

// IsLegacySkip reports whether skip=legacy skips img. The API documentation
// does not define legacy; the mock reads it as the older, broader non-photo
// rule: clipart as for IsClipart, plus monochrome images (greyscale or black
// and white, at least 99% of samples with channel spread ≤ 8 levels), where
// colour correction has nothing to correct.
func IsLegacySkip(img *image.NRGBA) bool {
	if img == nil || img.Rect.Empty() {
		return false
	}
	st := measureGrid(img)
	return st.clipart() || st.mono >= monoShare
}

// Noise estimation: Immerkær's Laplacian-difference mask on luma at full
// resolution, over at most noiseRows rows and noiseCols centres per row.
const (
	noiseRows = 256
	noiseCols = 1024
	// Levels (8-bit luma σ) at which EstimateNoise reports medium and high.
	noiseMedium = 2.5
	noiseHigh   = 6.0
)

// NoiseSigma estimates the standard deviation of the image noise in 8-bit
// luma levels: the median absolute response of Immerkær's noise mask
// (which cancels planes and ramps) over the flatter half of sampled
// positions (by local gradient), scaled for a Gaussian; quarter-level
// resolution. 0 for images
// smaller than 3×3.
func NoiseSigma(img *image.NRGBA) float64 {
	if img == nil {
		return 0
	}
	W, H := img.Rect.Dx(), img.Rect.Dy()
	if W < 3 || H < 3 {
		return 0
	}
	rows := min(H-2, noiseRows)
	cols := min(W-2, noiseCols)
	type sample struct{ grad, resp int32 }
	ss := make([]sample, 0, rows*cols)
	lum := func(y int, out []int32) {
		row := img.Pix[y*img.Stride : y*img.Stride+W*4]
		for x := range out {
			p := row[x*4 : x*4+3]
			out[x] = 77*int32(p[0]) + 150*int32(p[1]) + 29*int32(p[2])
		}
	}
	l0, l1, l2 := make([]int32, W), make([]int32, W), make([]int32, W)
	for j := 0; j < rows; j++ {
		y := 1 + j*(H-2)/rows
		lum(y-1, l0)
		lum(y, l1)
		lum(y+1, l2)
		for i := 0; i < cols; i++ {
			x := 1 + i*(W-2)/cols
			resp := l0[x-1] - 2*l0[x] + l0[x+1] -
				2*l1[x-1] + 4*l1[x] - 2*l1[x+1] +
				l2[x-1] - 2*l2[x] + l2[x+1]
			grad := abs32(l1[x+1]-l1[x-1]) + abs32(l2[x]-l0[x])
			ss = append(ss, sample{grad, abs32(resp)})
		}
	}
	// Flatter half: the samples whose gradient (in quarter levels) is at
	// most the median gradient; then the median of their responses, in
	// quarter levels. Counting, not sorting, keeps this linear.
	gh := make([]int32, noiseBins)
	for _, s := range ss {
		gh[quarter(s.grad)]++
	}
	cut := medianBin(gh, len(ss))
	rh := make([]int32, noiseBins)
	n := 0
	for _, s := range ss {
		if quarter(s.grad) <= cut {
			rh[quarter(s.resp)]++
			n++
		}
	}
	mb := medianBin(rh, n)
	if mb == 0 {
		return 0 // most responses under a quarter level: no measurable noise
	}
	return 1.4826 * ((float64(mb) + 0.5) / 4) / 6
}

// noiseBins covers responses up to 16·255 levels in quarter levels.
const noiseBins = 16*255*4 + 1

// quarter converts a ×256 luma quantity to quarter levels, clamped.
func quarter(v int32) int32 { return min(v>>6, noiseBins-1) }

// medianBin returns the bin holding the median of n counted values.
func medianBin(h []int32, n int) int32 {
	half, acc := int32(n/2), int32(0)
	for i, c := range h {
		acc += c
		if acc > half {
			return int32(i)
		}
	}
	return int32(len(h) - 1)
}

// EstimateNoise grades NoiseSigma for detectionData.noise: "low" below 2.5
// levels, "medium" below 6, "high" from 6.
func EstimateNoise(img *image.NRGBA) string {
	switch s := NoiseSigma(img); {
	case s < noiseMedium:
		return "low"
	case s < noiseHigh:
		return "medium"
	default:
		return "high"
	}
}
