package matting

import "math"

// Colour conversions used by the analysis. Values are float32 in [0,1]
// (sRGB-encoded or linear light) and CIE L*a*b* (D65) for distances.

var (
	srgb8ToLinear [256]float32
	// linLUT maps sRGB in [0,1] to linear light; index = v*lutScale.
	linLUT [lutSize + 2]float32
	// cbrtLUT is the L*a*b* companding function f(t) on t in [0,1].
	cbrtLUT [lutSize + 2]float32
	// gammaLUT maps linear light in [0,1] back to sRGB.
	gammaLUT [lutSize + 2]float32
)

const (
	lutSize  = 4096
	lutScale = float32(lutSize)
)

func init() {
	for i := range srgb8ToLinear {
		srgb8ToLinear[i] = float32(srgbToLinear(float64(i) / 255))
	}
	for i := range linLUT {
		v := float64(i) / lutSize
		linLUT[i] = float32(srgbToLinear(math.Min(v, 1)))
		cbrtLUT[i] = float32(labF(math.Min(v, 1)))
		gammaLUT[i] = float32(linearToSRGB(math.Min(v, 1)))
	}
}

func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func linearToSRGB(v float64) float64 {
	if v <= 0 {
		return 0
	}
	if v >= 1 {
		return 1
	}
	if v <= 0.0031308 {
		return v * 12.92
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

func labF(t float64) float64 {
	if t > 0.008856 {
		return math.Cbrt(t)
	}
	return 7.787*t + 16.0/116
}

// lookup interpolates a LUT on [0,1].
func lookup(lut *[lutSize + 2]float32, v float32) float32 {
	if v <= 0 {
		return lut[0]
	}
	if v >= 1 {
		return lut[lutSize]
	}
	if v != v {
		return v // NaN: no index to read (a model fitted to NaN data)
	}
	p := v * lutScale
	i := int(p)
	f := p - float32(i)
	return lut[i] + (lut[i+1]-lut[i])*f
}

func toLin(v float32) float32 { return lookup(&linLUT, v) }

func toGamma(v float32) float32 { return lookup(&gammaLUT, v) }

// linToLab converts linear RGB to L*a*b*.
func linToLab(r, g, b float32) (float32, float32, float32) {
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	fx, fy, fz := lookup(&cbrtLUT, x), lookup(&cbrtLUT, y), lookup(&cbrtLUT, z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

func sq(v float32) float32 { return v * v }
