package matting

// The CPU's mask clean-up of general mode, exported as the reference that a
// device implementation of [Classifier] is tested against, step by step
// and bit for bit (package gpu's tests). The pipeline itself calls the
// unexported functions these wrap.

// Component describes one connected component of [ReferenceComponents].
type Component struct {
	// Area is the pixel count.
	Area int
	// TouchesBorder says whether a pixel lies on the frame's edge.
	TouchesBorder bool
	// Peak is the largest score above 0 inside the component (0 without
	// a score).
	Peak float32
}

// ReferenceComponents labels the connected components of the pixels where
// mask == want, 8-connected when eight, else 4-connected: labels holds
// the component's index+1 (0 outside), components numbered in raster
// order of their first pixel; score, when not nil, gives each component's
// Peak.
func ReferenceComponents(mask []bool, w, h int, want, eight bool, score []float32) ([]int32, []Component) {
	labels, comps := components(mask, w, h, want, eight, score)
	out := make([]Component, len(comps))
	for i, c := range comps {
		out[i] = Component{Area: c.area, TouchesBorder: c.touchesBorder, Peak: c.peak}
	}
	return labels, out
}

// ReferenceKeepComponents removes, in place, the 8-connected components of
// mask whose score never reaches strong or that are small next to the
// largest component that does (classify's first and fifth steps).
func ReferenceKeepComponents(mask []bool, w, h int, score []float32, strong float32) {
	keepComponents(mask, w, h, score, strong)
}

// ReferenceFillSlits fills, in place, the narrow background runs between
// parts of the same component along rows and columns (classify calls it
// with maxGap = max(2, min(w,h)/25)).
func ReferenceFillSlits(mask []bool, w, h, maxGap int) { fillSlits(mask, w, h, maxGap) }

// ReferenceFillHoles fills, in place, the 4-connected background
// components that do not touch the frame and have at most maxArea pixels.
func ReferenceFillHoles(mask []bool, w, h, maxArea int) { fillHoles(mask, w, h, maxArea) }

// ReferenceSmoothLab returns the 3×3 average of the L*a*b* planes lab (3
// values per pixel), which the flood compares colours on.
func ReferenceSmoothLab(lab []float32, w, h int) []float32 {
	a := &analysis{w: w, h: h, lab: lab}
	return a.smoothLab()
}

// ReferenceFloodSmooth grows, in place, the background of mask from its
// components touching the frame into unprotected pixels of plain distance
// below 2t through 4-neighbour steps of squared smoothed-L*a*b* distance
// at most (t/4)²; smoothed is ReferenceSmoothLab's result.
func ReferenceFloodSmooth(mask []bool, w, h int, smoothed, plain []float32, t float32, protected []bool) {
	a := &analysis{w: w, h: h, smoothed: smoothed}
	floodSmooth(a, mask, plain, t, protected)
}

// ReferenceClassify is one classification round's mask on the CPU, from
// the analysis L*a*b* planes (w×h, 3 values per pixel), the background
// distances and the threshold: the result a [Classifier] must reproduce.
func ReferenceClassify(w, h int, lab, dist, plain []float32, t float32) []bool {
	return classify(&analysis{w: w, h: h, lab: lab}, dist, plain, t)
}
