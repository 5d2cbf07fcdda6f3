package matting

import "github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"

// Binary mask helpers on the analysis grid. A mask is []bool of w*h.

// component describes one connected component.
type component struct {
	area          int
	touchesBorder bool
	peak          float32 // largest score inside, when a score is given
}

// components labels the connected components of pixels where mask == want
// (8-connected when eight, else 4-connected). labels holds component index+1,
// 0 for pixels not in any component; components are numbered in raster
// order of their first pixel. score, when not nil, feeds the peak.
//
// It works on runs: each row's runs are united with the overlapping runs of
// the row above (union-find), which touches every pixel only twice.
func components(mask []bool, w, h int, want, eight bool, score []float32) ([]int32, []component) {
	type run struct{ y, x0, x1 int32 } // x1 exclusive
	var runs []run
	var parent []int32
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb { // the earlier run is the root: raster order of ids
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}
	ext := int32(0)
	if eight {
		ext = 1
	}
	prevStart, prevEnd := 0, 0
	for y := 0; y < h; y++ {
		row := mask[y*w : y*w+w]
		curStart := len(runs)
		j := prevStart
		for x := 0; x < w; {
			if row[x] != want {
				x++
				continue
			}
			x0 := x
			for x < w && row[x] == want {
				x++
			}
			id := int32(len(runs))
			runs = append(runs, run{int32(y), int32(x0), int32(x)})
			parent = append(parent, id)
			// previous-row runs overlapping [x0-ext, x+ext)
			for j < prevEnd && runs[j].x1+ext <= int32(x0) {
				j++
			}
			for k := j; k < prevEnd && runs[k].x0 < int32(x)+ext; k++ {
				union(id, int32(k))
			}
		}
		prevStart, prevEnd = curStart, len(runs)
	}
	labels := make([]int32, w*h)
	rootID := make([]int32, len(runs))
	var comps []component
	for i := range runs {
		r := find(int32(i))
		if r == int32(i) {
			comps = append(comps, component{})
			rootID[i] = int32(len(comps))
		}
		id := rootID[r]
		rootID[i] = id
		rn := runs[i]
		c := &comps[id-1]
		n := int(rn.x1 - rn.x0)
		c.area += n
		if rn.y == 0 || int(rn.y) == h-1 || rn.x0 == 0 || int(rn.x1) == w {
			c.touchesBorder = true
		}
		o := int(rn.y) * w
		for x := rn.x0; x < rn.x1; x++ {
			labels[o+int(x)] = id
			if score != nil && score[o+int(x)] > c.peak {
				c.peak = score[o+int(x)]
			}
		}
	}
	return labels, comps
}

// fillHoles sets to true every 4-connected false region that does not touch
// the border and whose area is at most maxArea.
func fillHoles(mask []bool, w, h int, maxArea int) {
	labels, comps := components(mask, w, h, false, false, nil)
	for i, l := range labels {
		if l == 0 {
			continue
		}
		c := comps[l-1]
		if !c.touchesBorder && c.area <= maxArea {
			mask[i] = true
		}
	}
}

// dilate returns mask grown by r pixels (square structuring element).
func dilate(mask []bool, w, h, r int) []bool { return squareMorph(mask, w, h, r, true) }

// erode returns mask shrunk by r pixels (square structuring element); the
// frame does not erode.
func erode(mask []bool, w, h, r int) []bool { return squareMorph(mask, w, h, r, false) }

// squareMorph is a separable (2r+1)² max (grow) or min filter, using
// running counts per row and then per column; rows and columns are
// independent, so both passes run in parallel.
func squareMorph(mask []bool, w, h, r int, grow bool) []bool {
	tmp := make([]bool, len(mask))
	out := make([]bool, len(mask))
	if r <= 0 {
		copy(out, mask)
		return out
	}
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := mask[y*w : y*w+w]
			dst := tmp[y*w : y*w+w]
			n := 0
			for x := 0; x < min(r, w); x++ {
				if row[x] == grow {
					n++
				}
			}
			// The window [x-r, x+r] gains row[x+r] while x+r < w and
			// loses row[x-r-1] once x > r: three runs without bounds
			// tests in the loop.
			x := 0
			for ; x < w && x <= r; x++ {
				if x+r < w && row[x+r] == grow {
					n++
				}
				dst[x] = (n > 0) == grow
			}
			for ; x+r < w; x++ {
				if row[x+r] == grow {
					n++
				}
				if row[x-r-1] == grow {
					n--
				}
				dst[x] = (n > 0) == grow
			}
			for ; x < w; x++ {
				if row[x-r-1] == grow {
					n--
				}
				dst[x] = (n > 0) == grow
			}
		}
	})
	// The column pass walks rows in memory order over a band of columns,
	// with one running count per column: the same counts as a walk down
	// each column, without striding through memory.
	parallel.Rows(w, func(x0, x1 int) {
		n := make([]int32, x1-x0)
		count := func(y int, d int32) {
			for i, v := range tmp[y*w+x0 : y*w+x1] {
				if v == grow {
					n[i] += d
				}
			}
		}
		for y := 0; y < min(r, h); y++ {
			count(y, 1)
		}
		for y := 0; y < h; y++ {
			if y+r < h {
				count(y+r, 1)
			}
			if y-r-1 >= 0 {
				count(y-r-1, -1)
			}
			dst := out[y*w+x0 : y*w+x1]
			for i := range dst {
				dst[i] = (n[i] > 0) == grow
			}
		}
	})
	return out
}

// boundaryBand marks pixels within r of a label change: those with a
// 4-neighbour of the other label, dilated by r. Each row reads only its
// neighbours, so rows run in parallel.
func boundaryBand(mask []bool, w, h, r int) []bool {
	edge := make([]bool, len(mask))
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				p := y*w + x
				v := mask[p]
				edge[p] = x+1 < w && mask[p+1] != v || x > 0 && mask[p-1] != v ||
					y+1 < h && mask[p+w] != v || y > 0 && mask[p-w] != v
			}
		}
	})
	if r <= 0 {
		return edge
	}
	return dilate(edge, w, h, r)
}
