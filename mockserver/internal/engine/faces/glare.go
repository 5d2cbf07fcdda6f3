package faces

import (
	"image"
	"math"
)

// Glare detection and inpainting thresholds (documented in doc.go).
const (
	// Eye region around the eye pair, in eye distances d.
	glareRegionSide = 0.6  // beyond each eye, horizontally
	glareRegionVert = 0.45 // above and below the eye line
	// A glare pixel is near-white, nearly grey and far above the region's
	// median luma.
	glareMinLuma     = 240
	glareMaxChroma   = 28 // max(R,G,B) - min(R,G,B)
	glareMinContrast = 40 // luma - median luma of the region
	// A blob's mean luma must exceed the mean luma of its surroundings (the
	// non-glare pixels within glareRingFrac·d of its bounding box) by
	// glareMinEdgeContrast: lens reflections have hard edges, skin sheen
	// fades out gradually.
	glareRingFrac        = 0.08
	glareMinEdgeContrast = 60
	// Blob size limits: at least glareMinAreaFrac·d² pixels (catch-lights in
	// the pupils are smaller), at most glareMaxAreaFrac of the region.
	glareMinAreaFrac = 0.005
	glareMaxAreaFrac = 0.25
	// Each blob is grown by max(1, glareDilateFrac·d) pixels to cover its
	// soft halo before filling.
	glareDilateFrac = 0.03
	// Smoothing passes after the boundary-inwards fill.
	glareSmoothIters = 30
)

// RemoveGlare finds specular glasses glare in the eye region of each face
// and inpaints it in place. It reports whether any glare was found and the
// image changed; without glare img is left untouched. Faces whose eyes are
// unset get the detector's eye priors inside their box.
func RemoveGlare(img *image.NRGBA, faces []Face) (found bool) {
	if img == nil {
		return false
	}
	for _, f := range faces {
		if removeFaceGlare(img, f) {
			found = true
		}
	}
	return found
}

// eyeDistance is the distance between the eyes, but at least a quarter of the
// face box so a degenerate eye pair still gives a usable scale.
func eyeDistance(f Face, le, re PointF) float64 {
	return math.Max(math.Hypot(re.X-le.X, re.Y-le.Y), 0.25*float64(max(f.Box.Dx(), f.Box.Dy())))
}

func removeFaceGlare(img *image.NRGBA, f Face) bool {
	le, re := faceEyes(f)
	d := eyeDistance(f, le, re)
	if d < 4 {
		return false
	}
	region := image.Rect(
		int(math.Floor(math.Min(le.X, re.X)-glareRegionSide*d)),
		int(math.Floor(math.Min(le.Y, re.Y)-glareRegionVert*d)),
		int(math.Ceil(math.Max(le.X, re.X)+glareRegionSide*d)),
		int(math.Ceil(math.Max(le.Y, re.Y)+glareRegionVert*d)),
	).Intersect(img.Bounds())
	if region.Dx() < 3 || region.Dy() < 3 {
		return false
	}
	blobs := findGlareBlobs(img, region, d)
	if len(blobs) == 0 {
		return false
	}
	r := max(1, int(math.Round(glareDilateFrac*d)))
	maskRect := region.Inset(-(r + 1)).Intersect(img.Bounds())
	mw := maskRect.Dx()
	mask := make([]bool, mw*maskRect.Dy())
	for _, p := range blobs {
		for y := max(p.Y-r, maskRect.Min.Y); y <= min(p.Y+r, maskRect.Max.Y-1); y++ {
			for x := max(p.X-r, maskRect.Min.X); x <= min(p.X+r, maskRect.Max.X-1); x++ {
				mask[(y-maskRect.Min.Y)*mw+x-maskRect.Min.X] = true
			}
		}
	}
	return inpaint(img, maskRect, mask)
}

// findGlareBlobs returns the pixels of the accepted glare blobs in region.
func findGlareBlobs(img *image.NRGBA, region image.Rectangle, d float64) []image.Point {
	rw, rh := region.Dx(), region.Dy()
	var hist [256]int
	luma := make([]uint8, rw*rh)
	cand := make([]bool, rw*rh)
	for y := 0; y < rh; y++ {
		off := img.PixOffset(region.Min.X, region.Min.Y+y)
		for x := 0; x < rw; x++ {
			p := img.Pix[off+4*x : off+4*x+3 : off+4*x+3]
			l := uint8((19595*uint32(p[0]) + 38470*uint32(p[1]) + 7471*uint32(p[2]) + 1<<15) >> 16)
			luma[y*rw+x] = l
			hist[l]++
			hi := max(p[0], p[1], p[2])
			lo := min(p[0], p[1], p[2])
			cand[y*rw+x] = l >= glareMinLuma && int(hi)-int(lo) <= glareMaxChroma
		}
	}
	median, seen := 0, 0
	for v, n := range hist {
		seen += n
		if 2*seen >= rw*rh {
			median = v
			break
		}
	}
	for i, l := range luma {
		if cand[i] && int(l)-median < glareMinContrast {
			cand[i] = false
		}
	}

	minArea := max(4, int(math.Ceil(glareMinAreaFrac*d*d)))
	maxArea := int(glareMaxAreaFrac * float64(rw*rh))
	ring := max(2, int(math.Round(glareRingFrac*d)))
	var out []image.Point
	visited := make([]bool, rw*rh)
	var stack, comp []int
	for start := range cand {
		if !cand[start] || visited[start] {
			continue
		}
		// 8-connected flood fill in scan order: deterministic.
		comp = comp[:0]
		touches := false
		stack = append(stack[:0], start)
		visited[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, i)
			x, y := i%rw, i/rw
			if x == 0 || y == 0 || x == rw-1 || y == rh-1 {
				touches = true
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= rw || ny >= rh {
						continue
					}
					j := ny*rw + nx
					if cand[j] && !visited[j] {
						visited[j] = true
						stack = append(stack, j)
					}
				}
			}
		}
		// A blob reaching the region border is bright background or
		// over-exposed skin, not a reflection on a lens.
		if touches || len(comp) < minArea || len(comp) > maxArea ||
			!hardEdged(luma, cand, comp, rw, rh, ring) {
			continue
		}
		for _, i := range comp {
			out = append(out, image.Pt(region.Min.X+i%rw, region.Min.Y+i/rw))
		}
	}
	return out
}

// hardEdged reports whether the blob comp (indices into the region) is at
// least glareMinEdgeContrast brighter on average than the non-candidate
// pixels in its bounding box grown by ring.
func hardEdged(luma []uint8, cand []bool, comp []int, rw, rh, ring int) bool {
	x0, y0, x1, y1 := rw, rh, -1, -1
	var blobSum int
	for _, i := range comp {
		x, y := i%rw, i/rw
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		blobSum += int(luma[i])
	}
	var ringSum, ringN int
	for y := max(0, y0-ring); y <= min(rh-1, y1+ring); y++ {
		for x := max(0, x0-ring); x <= min(rw-1, x1+ring); x++ {
			if i := y*rw + x; !cand[i] {
				ringSum += int(luma[i])
				ringN++
			}
		}
	}
	if ringN == 0 {
		return false
	}
	return blobSum*ringN-ringSum*len(comp) >= glareMinEdgeContrast*len(comp)*ringN
}

// inpaint fills the masked pixels of rect from the boundary inwards (each
// layer takes the mean of its already-known 8-neighbours), then relaxes the
// fill with synchronous 8-neighbour averaging so it blends like a membrane.
// Alpha is kept. It reports whether any pixel changed.
func inpaint(img *image.NRGBA, rect image.Rectangle, mask []bool) bool {
	w, h := rect.Dx(), rect.Dy()
	n := w * h
	val := make([][3]float32, n)
	for y := 0; y < h; y++ {
		off := img.PixOffset(rect.Min.X, rect.Min.Y+y)
		for x := 0; x < w; x++ {
			p := img.Pix[off+4*x:]
			val[y*w+x] = [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
		}
	}
	known := make([]bool, n)
	var holes []int
	for i, m := range mask {
		known[i] = !m
		if m {
			holes = append(holes, i)
		}
	}
	type fill struct {
		i int
		v [3]float32
	}
	var layer []fill
	pending := holes
	for len(pending) > 0 {
		layer = layer[:0]
		var rest []int
		for _, i := range pending {
			if v, ok := neighbourMean(val, known, i, w, h); ok {
				layer = append(layer, fill{i, v})
			} else {
				rest = append(rest, i)
			}
		}
		if len(layer) == 0 {
			break // no known pixel at all: leave the rest untouched
		}
		for _, f := range layer {
			val[f.i] = f.v
			known[f.i] = true
		}
		pending = rest
	}
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	next := make([][3]float32, len(holes))
	for range glareSmoothIters {
		for k, i := range holes {
			next[k], _ = neighbourMean(val, all, i, w, h)
		}
		for k, i := range holes {
			val[i] = next[k]
		}
	}
	changed := false
	for _, i := range holes {
		off := img.PixOffset(rect.Min.X+i%w, rect.Min.Y+i/w)
		for c := 0; c < 3; c++ {
			v := uint8(math.Min(255, math.Max(0, math.Round(float64(val[i][c])))))
			if img.Pix[off+c] != v {
				img.Pix[off+c] = v
				changed = true
			}
		}
	}
	return changed
}

// neighbourMean is the mean of the 8-neighbours of i flagged in use.
func neighbourMean(val [][3]float32, use []bool, i, w, h int) ([3]float32, bool) {
	x, y := i%w, i/w
	var s [3]float32
	cnt := 0
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			nx, ny := x+dx, y+dy
			if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h {
				continue
			}
			j := ny*w + nx
			if !use[j] {
				continue
			}
			s[0] += val[j][0]
			s[1] += val[j][1]
			s[2] += val[j][2]
			cnt++
		}
	}
	if cnt == 0 {
		return s, false
	}
	inv := 1 / float32(cnt)
	return [3]float32{s[0] * inv, s[1] * inv, s[2] * inv}, true
}
