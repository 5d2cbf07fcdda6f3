package imageio

// Limits are the size rules an input must meet. A zero field disables its
// check.
type Limits struct {
	// MinSide is the smallest allowed short side, inclusive.
	MinSide int
	// MaxLongSide is the largest allowed long side, inclusive.
	MaxLongSide int
	// AspectBelow: long side / short side must be strictly below it.
	AspectBelow float64
	// PixelsBelow: width*height must be strictly below it.
	PixelsBelow int64
}

// HostedLimits are the hosted API's documented limits for correction,
// retouching, creative filters and auto cropping: larger than 32x32 (both
// sides at least 33), at most 100,000 px on the long side, aspect ratio below
// 21:1, below 200 megapixels.
var HostedLimits = Limits{MinSide: 33, MaxLongSide: 100_000, AspectBelow: 21, PixelsBelow: 200_000_000}

// MemoryLimits are what every decoded image must meet whatever the job
// does: some pixels, below 200 megapixels (a bound on the engine's memory,
// not a documented limit). Jobs that the documented limits do not cover
// (a hosted resize-only job with preset=none, a background image) use it.
var MemoryLimits = Limits{MinSide: 1, PixelsBelow: 200_000_000}

// ContainerLimits are the correction container's documented limits: a short
// side under 32 px is rejected. The API documentation has no other hard limit
// (beautify is skipped above 21:1, which is the caller's decision, not a
// rejection); the mock still rejects 200 megapixels and more so one request
// cannot exhaust memory.
var ContainerLimits = Limits{MinSide: 32, PixelsBelow: 200_000_000}

// Check returns a *RejectError when a w x h image breaks l, nil otherwise.
// Checks run in the order short side, long side, aspect, megapixels.
func (l Limits) Check(w, h int) error {
	short, long := min(w, h), max(w, h)
	if short <= 0 {
		return reject(ReasonTooSmall, "%dx%d has no pixels", w, h)
	}
	if l.MinSide > 0 && short < l.MinSide {
		return reject(ReasonTooSmall, "%dx%d: short side %d px is below the minimum of %d px", w, h, short, l.MinSide)
	}
	if l.MaxLongSide > 0 && long > l.MaxLongSide {
		return reject(ReasonTooLarge, "%dx%d: long side %d px is above the maximum of %d px", w, h, long, l.MaxLongSide)
	}
	if l.AspectBelow > 0 && float64(long) >= l.AspectBelow*float64(short) {
		return reject(ReasonAspect, "%dx%d: aspect ratio %.2f:1 is not below %g:1", w, h, float64(long)/float64(short), l.AspectBelow)
	}
	if l.PixelsBelow > 0 && int64(w)*int64(h) >= l.PixelsBelow {
		return reject(ReasonMegapixels, "%dx%d: %d pixels is not below %d", w, h, int64(w)*int64(h), l.PixelsBelow)
	}
	return nil
}
