package correct

// Skin tones are found with a hue/saturation window in HSV, evaluated in
// integer arithmetic on 12-bit channel values (8-bit value × 16) so the
// vibrance pass can call it per pixel:
//
//   - red is the largest channel and blue the smallest (hue 0°–60°);
//   - full weight for hue 8°–38° and HSV saturation 0.18–0.60, ramping to
//     zero at hue 0° and 52° and at saturation 0.08 and 0.75;
//   - red at least 60/255 (deep shadows are not protected).
//
// The window is wide enough for light to dark complexions under daylight
// and tungsten, and excludes the highly saturated oranges of sunsets.

const (
	unit12     = 16            // one 8-bit level in the 12-bit domain
	max12      = 255 * unit12  // 4080, white in the 12-bit domain
	skinMinRed = 60 * unit12   // darkest red channel considered skin
	fracOne    = 256           // 1.0 in the hue/saturation fractions
	recipScale = fracOne << 16 // recip[x] = recipScale / x
	recipSize  = max12 + 1
	weightOne  = 256 // 1.0 for skin weights
)

var (
	// recip[x] ≈ 256·65536/x, so (a·recip[x])>>16 ≈ 256·a/x without division.
	recip [recipSize]int32
	// skinHueW and skinSatW map a fraction (0..256, with margin for
	// rounding) to a weight 0..256.
	skinHueW [fracOne + 2]int32
	skinSatW [fracOne + 2]int32
)

func init() {
	for x := 1; x < recipSize; x++ {
		recip[x] = int32((recipScale + x/2) / x)
	}
	for i := range skinHueW {
		// The fraction is (g-b)/(r-b) = hue/60°.
		hue := float64(i) / fracOne * 60
		skinHueW[i] = int32(weightOne*trapezoid(hue, 0, 8, 38, 52) + 0.5)
		sat := float64(i) / fracOne
		skinSatW[i] = int32(weightOne*trapezoid(sat, 0.08, 0.18, 0.60, 0.75) + 0.5)
	}
}

// trapezoid is 0 outside (a,d), 1 on [b,c] and linear in between.
func trapezoid(x, a, b, c, d float64) float64 {
	switch {
	case x <= a || x >= d:
		return 0
	case x < b:
		return (x - a) / (b - a)
	case x <= c:
		return 1
	default:
		return (d - x) / (d - c)
	}
}

// skinWeight returns how skin-like a pixel is, 0 to 256, for 12-bit channel
// values (0..4080).
func skinWeight(r, g, b int32) int32 {
	if r <= g || g < b || r < skinMinRed {
		return 0
	}
	d := r - b // > 0 because r > g >= b
	hue := (int64(g-b) * int64(recip[d])) >> 16
	sat := (int64(d) * int64(recip[r])) >> 16
	if hue > fracOne {
		hue = fracOne
	}
	if sat > fracOne {
		sat = fracOne
	}
	return skinHueW[hue] * skinSatW[sat] >> 8
}
