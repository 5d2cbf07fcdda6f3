package synth

import "image"

// IoU returns the intersection over union of the foreground masks of alpha
// and truth, where a pixel is foreground when its alpha is at least thr
// (thr 0 is treated as 1). Both images are compared over their common
// bounds; when both masks are empty the result is 1.
func IoU(alpha, truth *image.Alpha, thr uint8) float64 {
	if thr == 0 {
		thr = 1
	}
	r := alpha.Rect.Intersect(truth.Rect)
	var inter, union int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ao := alpha.PixOffset(r.Min.X, y)
		to := truth.PixOffset(r.Min.X, y)
		for x := 0; x < r.Dx(); x++ {
			a := alpha.Pix[ao+x] >= thr
			t := truth.Pix[to+x] >= thr
			if a && t {
				inter++
			}
			if a || t {
				union++
			}
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// MAE returns the mean absolute alpha error over the common bounds, in 0..1.
func MAE(alpha, truth *image.Alpha) float64 {
	r := alpha.Rect.Intersect(truth.Rect)
	if r.Empty() {
		return 0
	}
	var sum int64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ao := alpha.PixOffset(r.Min.X, y)
		to := truth.PixOffset(r.Min.X, y)
		for x := 0; x < r.Dx(); x++ {
			d := int64(alpha.Pix[ao+x]) - int64(truth.Pix[to+x])
			if d < 0 {
				d = -d
			}
			sum += d
		}
	}
	return float64(sum) / (255 * float64(r.Dx()*r.Dy()))
}
