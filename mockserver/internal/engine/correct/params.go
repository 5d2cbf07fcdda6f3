package correct

import "math"

// Params are the strengths of one automatic correction. The zero value is
// the identity. Apply clamps every field to its documented range (NaN counts
// as 0), so no value can make it fail.
type Params struct {
	// Cast is the strength of colour-cast removal, 0 (off) to 1 (the
	// estimated cast is fully neutralised).
	Cast float64
	// ClipLow and ClipHigh are the percentages (0 to 5) of channel values,
	// all three channels pooled, that the levels stretch lets clip to black
	// and to white (Simplest Color Balance).
	ClipLow, ClipHigh float64
	// Stretch is the strength of the levels stretch, 0 (off) to 1 (the clip
	// percentiles map exactly to 0 and 255).
	Stretch float64
	// AutoExposure, 0 to 1, is how far a mid-tone gamma moves the mean
	// luminance into the target band when it lies outside it.
	AutoExposure float64
	// Brightness, -1 to 1, is a fixed mid-tone shift: gamma 2^-Brightness.
	Brightness float64
	// Contrast, -1 to 1, is the strength of an S-curve around mid-grey;
	// negative values flatten.
	Contrast float64
	// Vibrance, -1 to 1, changes saturation more for low-chroma pixels than
	// for already colourful ones.
	Vibrance float64
	// Saturation, -1 to 1, changes saturation uniformly.
	Saturation float64
	// SkinProtect, 0 to 1, is the fraction of any saturation increase
	// (vibrance plus saturation) withheld from skin-toned pixels.
	SkinProtect float64
}

// Parameter ranges; Apply and ParsePreset clamp to them.
const (
	maxClipPercent = 5.0
)

// clamp returns v limited to [lo,hi]; NaN becomes 0 limited to the range.
func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		v = 0
	}
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Clamped returns p with every field limited to its documented range.
func (p Params) Clamped() Params {
	return Params{
		Cast:         clamp(p.Cast, 0, 1),
		ClipLow:      clamp(p.ClipLow, 0, maxClipPercent),
		ClipHigh:     clamp(p.ClipHigh, 0, maxClipPercent),
		Stretch:      clamp(p.Stretch, 0, 1),
		AutoExposure: clamp(p.AutoExposure, 0, 1),
		Brightness:   clamp(p.Brightness, -1, 1),
		Contrast:     clamp(p.Contrast, -1, 1),
		Vibrance:     clamp(p.Vibrance, -1, 1),
		Saturation:   clamp(p.Saturation, -1, 1),
		SkinProtect:  clamp(p.SkinProtect, 0, 1),
	}
}

// IsIdentity reports whether p (after clamping) changes no pixel: every
// operation is off. ClipLow, ClipHigh and SkinProtect only modify other
// operations and do not count.
func (p Params) IsIdentity() bool {
	c := p.Clamped()
	return c.Cast == 0 && c.Stretch == 0 && c.AutoExposure == 0 && c.Brightness == 0 &&
		c.Contrast == 0 && c.Vibrance == 0 && c.Saturation == 0
}

// CastMethod names the illuminant estimate used for colour-cast removal.
type CastMethod string

// The cast-removal methods reported in Stats.
const (
	// CastNone: no cast removal (Cast was 0 or the image had too few usable
	// pixels for an estimate).
	CastNone CastMethod = "none"
	// CastGrayWorld: the mean colour of the well-exposed pixels.
	CastGrayWorld CastMethod = "gray-world"
	// CastWhitePatch: the mean colour of the brightest 2% of the
	// well-exposed pixels.
	CastWhitePatch CastMethod = "white-patch"
)

// Stats describes what Apply did.
type Stats struct {
	// Applied is true when the pixels went through a correction pass; false
	// when the parameters or the image made every step a no-op.
	Applied bool
	// Method is the illuminant estimate used for cast removal.
	Method CastMethod
	// Cast is the estimated illuminant colour as R, G, B relative to its
	// luma: {1,1,1} is neutral (and reported when nothing was estimated);
	// {1.12,0.98,0.78} is a warm cast.
	Cast [3]float64
	// Gains are the per-channel gains applied for cast removal.
	Gains [3]float64
	// Low and High are the post-cast channel levels mapped to 0 and 255 by
	// the stretch (0 and 255 without stretch).
	Low, High float64
	// MeanLuma is the mean luminance (0..1) after cast removal and stretch,
	// which auto exposure works from.
	MeanLuma float64
	// Gamma is the mid-tone gamma applied (auto exposure and brightness);
	// 1 when none. Below 1 brightens.
	Gamma float64
	// Contrast, Vibrance and Saturation are the clamped strengths applied.
	Contrast, Vibrance, Saturation float64
}
