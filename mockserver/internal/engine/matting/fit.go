package matting

import "math"

// MaxOutputLongSide is the longest side of a background-removal result; the
// seed has larger results scaled down automatically.
const MaxOutputLongSide = 5000

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
