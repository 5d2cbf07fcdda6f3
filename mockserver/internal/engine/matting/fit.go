package matting

import (
	"math"
)

// MaxOutputLongSide is the longest side of a background-removal result; the
// container has larger results scaled down automatically.
const MaxOutputLongSide = 5000

// MaxOutputPixels is the largest area of a hosted background-removal
// result: the documented "at most 5000 pixels on the longer side (about 14
// megapixels)", which also holds for square results (a 4800×4800 input
// gives about 3741×3741, not 23 megapixels).
const MaxOutputPixels = 14_000_000

// FitOutput returns the size (w, h) scaled down, aspect ratio kept, so that
// its long side is at most maxLong and its area at most maxPixels (a
// non-positive limit is not applied); sizes that already fit are returned
// unchanged. Each side is at least 1.
func FitOutput(w, h, maxLong int, maxPixels int64) (int, int) {
	w, h = FitLongSide(w, h, maxLong)
	if w <= 0 || h <= 0 || maxPixels <= 0 || int64(w)*int64(h) <= maxPixels {
		return w, h
	}
	s := math.Sqrt(float64(maxPixels) / (float64(w) * float64(h)))
	nw, nh := max(1, int(float64(w)*s)), max(1, int(float64(h)*s))
	return nw, nh
}

// FitLongSide returns the size (w, h) scaled down, aspect ratio kept, so
// that its long side is at most limit; sizes that already fit, and
// non-positive arguments, are returned unchanged. The short side is rounded
// to the nearest pixel and is at least 1.
func FitLongSide(w, h, limit int) (int, int) {
	if w <= 0 || h <= 0 || limit <= 0 {
		return w, h
	}
	long, short := w, h
	if h > w {
		long, short = h, w
	}
	if long <= limit {
		return w, h
	}
	s := max(1, int(math.Round(float64(short)*float64(limit)/float64(long))))
	if w >= h {
		return limit, s
	}
	return s, limit
}
