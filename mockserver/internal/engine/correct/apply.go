package correct

import (
	"image"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// Tuning of the automatic correction; doc.go explains each rule.
const (
	// Pixels with a channel at or above clippedLevel, or with luma below
	// darkLuma, are left out of the cast estimate: clipped highlights read
	// white whatever the light, and near-black pixels carry no colour.
	clippedLevel = 250
	darkLuma     = 8
	// minEstimateShare is the least share of opaque pixels that must be
	// well exposed for a cast estimate.
	minEstimateShare = 0.01
	// whitePatchShare is the brightest share of the well-exposed pixels
	// whose mean colour is the white patch.
	whitePatchShare = 0.02
	// The white patch is used when its luma is at least whitePatchMinLuma
	// and either its tint is at most neutralTint (neutral highlights: the
	// light is white and any colourful mean is content), or its tint is at
	// most maxWhiteTint while the whole image (gray-world) is tinted too:
	// more than neutralTint and at least wholeImageTint of the patch's
	// tint (a tinted patch on a neutral image is a coloured object, such
	// as sky, not a cast).
	whitePatchMinLuma = 0.5
	neutralTint       = 0.03
	maxWhiteTint      = 0.40
	wholeImageTint    = 0.25
	// Cast gains are limited to [minGain,maxGain].
	minGain = 0.6
	maxGain = 1.6
	// Stretch limits: the black point never rises above maxBlackPoint, the
	// white point never falls below minWhitePoint, and the stretch gain
	// never exceeds maxStretchGain.
	maxBlackPoint  = 40.0
	minWhitePoint  = 150.0
	maxStretchGain = 2.5
	levelTolerance = 3.0
	// Auto exposure moves the mean luma into [exposureLow,exposureHigh]
	// with a gamma limited to [minGamma,maxGamma].
	exposureLow  = 0.40
	exposureHigh = 0.55
	minGamma     = 0.6
	maxGamma     = 1.5
	// postBins is the resolution of the post-cast histogram: half levels,
	// up to 511.5, enough for maxGain × 255.
	postBinsPerLevel = 2
	postBins         = 1024
)

// Rec. 601 luma weights.
const (
	lumaR = 0.299
	lumaG = 0.587
	lumaB = 0.114
)

// imageStats are the exact statistics of one histogram pass.
type imageStats struct {
	ch    [3][256]uint64 // per-channel histograms of opaque pixels
	sum   [256][3]uint64 // channel sums of well-exposed pixels, by luma
	cnt   [256]uint64    // well-exposed pixel counts, by luma
	total uint64         // opaque pixels
}

// bandStats is one band's share of imageStats, with narrower counters.
type bandStats struct {
	ch  [3][256]uint32
	sum [256][3]uint64
	cnt [256]uint32
}

// collectStats runs the histogram pass over img, one band per core; the
// integer sums make the merge independent of the band count.
func collectStats(img *image.NRGBA) *imageStats {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	n := parallel.Bands(h, minBandRows)
	bands := make([]bandStats, n)
	parallel.For(h, n, func(band, y0, y1 int) {
		bs := &bands[band]
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+w*4]
			for i := 0; i+3 < len(row); i += 4 {
				if row[i+3] == 0 {
					continue
				}
				r, g, b := row[i], row[i+1], row[i+2]
				bs.ch[0][r]++
				bs.ch[1][g]++
				bs.ch[2][b]++
				if r >= clippedLevel || g >= clippedLevel || b >= clippedLevel {
					continue
				}
				l := (77*uint32(r) + 150*uint32(g) + 29*uint32(b) + 128) >> 8
				if l < darkLuma {
					continue
				}
				s := &bs.sum[l]
				s[0] += uint64(r)
				s[1] += uint64(g)
				s[2] += uint64(b)
				bs.cnt[l]++
			}
		}
	})
	st := &imageStats{}
	for i := range bands {
		bs := &bands[i]
		for c := 0; c < 3; c++ {
			for v := 0; v < 256; v++ {
				st.ch[c][v] += uint64(bs.ch[c][v])
			}
		}
		for l := 0; l < 256; l++ {
			st.cnt[l] += uint64(bs.cnt[l])
			for c := 0; c < 3; c++ {
				st.sum[l][c] += bs.sum[l][c]
			}
		}
	}
	for v := 0; v < 256; v++ {
		st.total += st.ch[0][v]
	}
	return st
}

// castEstimate is the illuminant estimate of an image.
type castEstimate struct {
	method CastMethod
	ref    [3]float64 // reference colour that should be neutral
}

// estimateCast chooses between gray-world and white-patch (see doc.go).
func estimateCast(st *imageStats) castEstimate {
	var n uint64
	var gw [3]float64
	for l := 0; l < 256; l++ {
		n += st.cnt[l]
		for c := 0; c < 3; c++ {
			gw[c] += float64(st.sum[l][c])
		}
	}
	if n == 0 || float64(n) < minEstimateShare*float64(st.total) {
		return castEstimate{method: CastNone, ref: [3]float64{1, 1, 1}}
	}
	for c := range gw {
		gw[c] /= float64(n)
	}
	// White patch: whole luma bins from the top until whitePatchShare.
	want := uint64(math.Ceil(whitePatchShare * float64(n)))
	var got uint64
	var wp [3]float64
	for l := 255; l >= 0 && got < want; l-- {
		got += st.cnt[l]
		for c := 0; c < 3; c++ {
			wp[c] += float64(st.sum[l][c])
		}
	}
	for c := range wp {
		wp[c] /= float64(got)
	}
	if luma(wp)/255 >= whitePatchMinLuma {
		t := tint(wp)
		gt := tint(gw)
		if t <= neutralTint || (t <= maxWhiteTint && gt > neutralTint && gt >= wholeImageTint*t) {
			return castEstimate{method: CastWhitePatch, ref: wp}
		}
	}
	return castEstimate{method: CastGrayWorld, ref: gw}
}

func luma(v [3]float64) float64 { return lumaR*v[0] + lumaG*v[1] + lumaB*v[2] }

// tint is the chroma of v relative to its mean: 0 for grey.
func tint(v [3]float64) float64 {
	m := (v[0] + v[1] + v[2]) / 3
	if m <= 0 {
		return 0
	}
	return (max(v[0], v[1], v[2]) - min(v[0], v[1], v[2])) / m
}

// castGains returns per-channel gains that map ref to a grey of the same
// luma, raised to strength (geometric blend with no change) and limited.
func castGains(ref [3]float64, strength float64) (gains, rel [3]float64) {
	y := luma(ref)
	for c := 0; c < 3; c++ {
		rel[c], gains[c] = 1, 1
		if ref[c] <= 0 || y <= 0 {
			continue
		}
		rel[c] = ref[c] / y
		gains[c] = clamp(math.Pow(y/ref[c], strength), minGain, maxGain)
	}
	return gains, rel
}

// levels returns the stretch black and white points on the post-cast scale.
// Without stretch the points stay at 0 and 255, except that a white point
// above 255 (cast gains pushing highlights out of range) is kept so those
// highlights are compressed rather than clipped.
func levels(st *imageStats, gains [3]float64, p Params) (lo, hi float64) {
	if st.total == 0 {
		return 0, 255
	}
	var hist [postBins]uint64
	for c := 0; c < 3; c++ {
		for v := 0; v < 256; v++ {
			if n := st.ch[c][v]; n != 0 {
				hist[postBin(float64(v)*gains[c])] += n
			}
		}
	}
	total := float64(3 * st.total)
	loCut, hiCut := p.ClipLow/100*total, p.ClipHigh/100*total
	lob, hib := 0, postBins-1
	var cum float64
	for ; lob < postBins-1; lob++ {
		cum += float64(hist[lob])
		if cum > loCut {
			break
		}
	}
	cum = 0
	for ; hib > 0; hib-- {
		cum += float64(hist[hib])
		if cum > hiCut {
			break
		}
	}
	lo = float64(lob) / postBinsPerLevel
	hi = float64(hib) / postBinsPerLevel
	if p.Stretch == 0 {
		return 0, max(255, hi)
	}
	if hi <= lo { // flat image: nothing to stretch
		return 0, max(255, hi)
	}
	// Levels within levelTolerance of the ends are already right.
	if lo <= levelTolerance {
		lo = 0
	}
	if hi >= 255-levelTolerance && hi <= 255 {
		hi = 255
	}
	// Partial strength moves the points from (0,255) toward (lo,hi); values
	// the gains pushed above 255 are always brought back in range.
	lo = min(lo*p.Stretch, maxBlackPoint)
	if hi <= 255 {
		hi = max(255-(255-hi)*p.Stretch, minWhitePoint)
	}
	if span := hi - lo; span < 255/maxStretchGain {
		grow := (255/maxStretchGain - span) / 2
		lo, hi = lo-grow, hi+grow
		if lo < 0 {
			hi -= lo
			lo = 0
		}
	}
	return lo, hi
}

func postBin(x float64) int {
	b := int(x*postBinsPerLevel + 0.5)
	if b >= postBins {
		b = postBins - 1
	}
	if b < 0 {
		b = 0
	}
	return b
}

// tone maps an 8-bit channel value through cast gain, stretch, gamma and
// contrast to 0..1.
func tone(v, gain, lo, hi, gamma, contrast float64) float64 {
	x := clamp((v*gain-lo)/(hi-lo), 0, 1)
	if gamma != 1 && x > 0 {
		x = math.Pow(x, gamma)
	}
	if contrast != 0 {
		x += contrast * (x*x*(3-2*x) - x)
	}
	return clamp(x, 0, 1)
}

// exposureGamma returns the auto-exposure gamma for mean luma m.
func exposureGamma(m, strength float64) float64 {
	if strength == 0 {
		return 1
	}
	var target float64
	switch {
	case m < exposureLow:
		target = exposureLow
	case m > exposureHigh:
		target = exposureHigh
	default:
		return 1
	}
	g := minGamma
	if m > 0 {
		g = clamp(math.Log(target)/math.Log(m), minGamma, maxGamma)
	}
	return math.Pow(g, strength)
}

// Apply corrects img in place with p and reports what it did. Alpha is
// never changed, and fully transparent pixels are neither measured nor
// changed. An identity p returns at once, leaving every byte untouched.
// The result does not depend on GOMAXPROCS.
func Apply(img *image.NRGBA, p Params) Stats {
	p = p.Clamped()
	stats := Stats{Method: CastNone, Cast: [3]float64{1, 1, 1}, Gains: [3]float64{1, 1, 1},
		Low: 0, High: 255, Gamma: 1}
	if img == nil || img.Rect.Empty() || p.IsIdentity() {
		return stats
	}
	stats.Contrast, stats.Vibrance, stats.Saturation = p.Contrast, p.Vibrance, p.Saturation

	gains := [3]float64{1, 1, 1}
	lo, hi := 0.0, 255.0
	gamma := 1.0
	if p.Cast > 0 || p.Stretch > 0 || p.AutoExposure > 0 {
		st := collectStats(img)
		if st.total == 0 {
			return stats
		}
		if p.Cast > 0 {
			est := estimateCast(st)
			if est.method != CastNone {
				var rel [3]float64
				gains, rel = castGains(est.ref, p.Cast)
				stats.Method, stats.Cast, stats.Gains = est.method, rel, gains
			}
		}
		lo, hi = levels(st, gains, p)
		stats.Low, stats.High = lo, hi
		var m [3]float64
		for c := 0; c < 3; c++ {
			var s float64
			for v := 0; v < 256; v++ {
				if n := st.ch[c][v]; n != 0 {
					s += float64(n) * tone(float64(v), gains[c], lo, hi, 1, 0)
				}
			}
			m[c] = s / float64(st.total)
		}
		stats.MeanLuma = luma(m)
		gamma = exposureGamma(stats.MeanLuma, p.AutoExposure)
	}
	gamma *= math.Exp2(-p.Brightness)
	stats.Gamma = gamma

	var lut8 [3][256]uint8
	var lut12 [3][256]uint16
	identity := true
	for c := 0; c < 3; c++ {
		for v := 0; v < 256; v++ {
			x := tone(float64(v), gains[c], lo, hi, gamma, p.Contrast)
			lut8[c][v] = uint8(x*255 + 0.5)
			lut12[c][v] = uint16(x*max12 + 0.5)
			if lut8[c][v] != uint8(v) {
				identity = false
			}
		}
	}
	chroma := p.Vibrance != 0 || p.Saturation != 0
	if identity && !chroma {
		return stats
	}
	stats.Applied = true
	if chroma {
		applyChroma(img, &lut12, p)
	} else {
		applyLUT(img, &lut8)
	}
	return stats
}

// applyLUT is the pixel pass without saturation changes: one table lookup
// per channel.
func applyLUT(img *image.NRGBA, lut *[3][256]uint8) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	parallel.For(h, parallel.Bands(h, minBandRows), func(_, y0, y1 int) {
		lr, lg, lb := &lut[0], &lut[1], &lut[2]
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+w*4]
			for i := 0; i+3 < len(row); i += 4 {
				if row[i+3] == 0 {
					continue
				}
				row[i] = lr[row[i]]
				row[i+1] = lg[row[i+1]]
				row[i+2] = lb[row[i+2]]
			}
		}
	})
}

// Fixed point for the chroma pass: 1.0 = 1<<fixShift.
const fixShift = 12

// applyChroma is the pixel pass with vibrance and saturation: tone LUTs to
// 12 bits, then each pixel's distance from its luma is scaled by
// 1+boost, where boost depends on the pixel's chroma and, for increases,
// on its skin weight. One rounding to 8 bits at the end.
func applyChroma(img *image.NRGBA, lut *[3][256]uint16, p Params) {
	// boost[k] for chroma k (12-bit chroma >> 4): Saturation plus Vibrance
	// weighted by (1-chroma)², in 1<<fixShift units.
	var boost [256]int32
	for k := range boost {
		c := float64(k) / 255
		b := p.Saturation + p.Vibrance*(1-c)*(1-c)
		boost[k] = int32(math.Round(max(b, -1) * (1 << fixShift)))
	}
	protect := int32(math.Round(p.SkinProtect * weightOne))
	w, h := img.Rect.Dx(), img.Rect.Dy()
	parallel.For(h, parallel.Bands(h, minBandRows), func(_, y0, y1 int) {
		lr, lg, lb := &lut[0], &lut[1], &lut[2]
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+w*4]
			for i := 0; i+4 <= len(row); i += 4 {
				px := row[i : i+4 : i+4]
				if px[3] == 0 {
					continue
				}
				r, g, b := int32(lr[px[0]]), int32(lg[px[1]]), int32(lb[px[2]])
				mx, mn := max(r, g, b), min(r, g, b)
				k := boost[uint8((mx-mn)>>4)]
				if k == 0 {
					px[0], px[1], px[2] = to8(r), to8(g), to8(b)
					continue
				}
				l := (1225*r + 2404*g + 467*b + 2048) >> 12
				if k > 0 {
					if protect > 0 && r > g && g >= b && r >= skinMinRed {
						if sw := skinWeight(r, g, b); sw > 0 {
							k -= k * (protect * sw >> 8) >> 8
						}
					}
					if up, dn := (mx-l)*k>>fixShift, (l-mn)*k>>fixShift; 2*up > gamutTop-mx || 2*dn > mn-gamutBottom {
						k = gamutLimit(k, l, mx, mn)
					}
				}
				r += ((r-l)*k + 1<<(fixShift-1)) >> fixShift
				g += ((g-l)*k + 1<<(fixShift-1)) >> fixShift
				b += ((b-l)*k + 1<<(fixShift-1)) >> fixShift
				px[0], px[1], px[2] = to8(r), to8(g), to8(b)
			}
		}
	})
}

// The chroma pass keeps boosted channels inside [gamutBottom, gamutTop],
// 12-bit values that round to 1 and 254 with a margin for the rounding of
// the push.
const (
	gamutBottom = unit12/2 + 2
	gamutTop    = max12 - unit12/2 - 2
)

// gamutLimit scales a saturation boost k so the pixel stays inside the
// gamut without touching its bounds. A channel pushed by d toward a bound
// with room R moves by d while d ≤ R/2 and by R - R²/(4d) beyond (the same
// value and slope at R/2, approaching but never reaching R). The
// constraining channel sets one scale for all three, which keeps the hue.
// l is the pixel's luma, mx and mn its largest and smallest channel; the
// caller calls it only when a push exceeds half its room.
func gamutLimit(k, l, mx, mn int32) int32 {
	out := k
	limit := func(d, room int32) {
		if d <= 0 || 2*d <= room {
			return
		}
		room = max(room, 0)
		d64, r64 := int64(d), int64(room)
		if kk := int32(int64(k) * (4*d64*r64 - r64*r64) / (4 * d64 * d64)); kk < out {
			out = kk
		}
	}
	limit((mx-l)*k>>fixShift, gamutTop-mx)
	limit((l-mn)*k>>fixShift, mn-gamutBottom)
	return out
}

// to8 rounds a 12-bit value to 8 bits, clamping out-of-range values.
func to8(v int32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= max12 {
		return 255
	}
	return uint8((v + unit12/2) >> 4)
}
