package faces

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"sort"
)

// puplocCascade is the parsed pigo pupil-localisation cascade (cascade/puploc).
// pigo's own PuplocCascade.RunDetector draws its perturbations from the global
// math/rand source and sorts a pooled 63-slot buffer, so its output changes
// from run to run; this re-implementation of the same tree walk takes its
// perturbations from a fixed table instead.
type puplocCascade struct {
	stages int
	scale  float32 // window scale multiplier applied after each stage
	trees  int     // trees per stage
	depth  int     // tree depth
	leaves int     // 1 << depth
	codes  []int8
	preds  []float32
}

var errPuplocFormat = errors.New("faces: malformed puploc cascade")

// parsePuploc decodes the binary layout pigo's UnpackCascade reads: stages,
// scale (float32), trees, depth, then per tree 4*2^depth-4 node codes and
// 2*2^depth leaf predictions, all little-endian.
func parsePuploc(b []byte) (*puplocCascade, error) {
	if len(b) < 16 {
		return nil, errPuplocFormat
	}
	stages := binary.LittleEndian.Uint32(b[0:])
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
	trees := binary.LittleEndian.Uint32(b[8:])
	depth := binary.LittleEndian.Uint32(b[12:])
	if stages == 0 || stages > 64 || trees == 0 || trees > 1024 || depth == 0 || depth > 12 {
		return nil, errPuplocFormat
	}
	pc := &puplocCascade{
		stages: int(stages), scale: scale, trees: int(trees),
		depth: int(depth), leaves: 1 << depth,
	}
	nTrees := pc.stages * pc.trees
	codeLen := 4*pc.leaves - 4
	treeLen := codeLen + 8*pc.leaves
	if len(b)-16 < nTrees*treeLen {
		return nil, errPuplocFormat
	}
	pc.codes = make([]int8, 0, nTrees*codeLen)
	pc.preds = make([]float32, 0, nTrees*2*pc.leaves)
	pos := 16
	for t := 0; t < nTrees; t++ {
		for _, c := range b[pos : pos+codeLen] {
			pc.codes = append(pc.codes, int8(c))
		}
		pos += codeLen
		for i := 0; i < 2*pc.leaves; i++ {
			pc.preds = append(pc.preds, math.Float32frombits(binary.LittleEndian.Uint32(b[pos:])))
			pos += 4
		}
	}
	return pc, nil
}

// grayImage is an 8-bit luma plane, row-major, stride = cols.
type grayImage struct {
	pix        []uint8
	rows, cols int
}

// classify runs the regression cascade from the window (r, c, s) and returns
// the refined pupil row, column and scale. It is pigo's non-rotated
// classifyRegion with flipV=false.
func (pc *puplocCascade) classify(r, c, s float32, g *grayImage) (float32, float32, float32) {
	root := 0
	codeLen := 4*pc.leaves - 4
	for i := 0; i < pc.stages; i++ {
		var dr, dc float32
		ir, ic, is := int(r), int(c), int(math.Round(float64(s)))
		for j := 0; j < pc.trees; j++ {
			idx := 0
			for k := 0; k < pc.depth; k++ {
				n := root + 4*idx
				r1 := clampInt((256*ir+int(pc.codes[n+0])*is)>>8, 0, g.rows-1)
				c1 := clampInt((256*ic+int(pc.codes[n+1])*is)>>8, 0, g.cols-1)
				r2 := clampInt((256*ir+int(pc.codes[n+2])*is)>>8, 0, g.rows-1)
				c2 := clampInt((256*ic+int(pc.codes[n+3])*is)>>8, 0, g.cols-1)
				if g.pix[r1*g.cols+c1] > g.pix[r2*g.cols+c2] {
					idx = 2*idx + 2
				} else {
					idx = 2*idx + 1
				}
			}
			lut := 2 * (pc.trees*pc.leaves*i + pc.leaves*j + idx - (pc.leaves - 1))
			dr += pc.preds[lut]
			dc += pc.preds[lut+1]
			root += codeLen
		}
		r += dr * s
		c += dc * s
		s *= pc.scale
	}
	return r, c, s
}

// puplocPerturbs is the number of perturbed starts per eye (pigo's CLI uses 63).
const puplocPerturbs = 63

// puplocSeed seeds the fixed perturbation table; any constant works, it only
// has to never change so eye positions stay reproducible across releases.
const puplocSeed = 0x5eed_f0ce

// perturbTable holds, per perturbation, the row offset, column offset (both
// in units of the window scale) and scale multiplier, drawn once from a seeded
// generator with pigo's distribution.
var perturbTable = func() [puplocPerturbs][3]float32 {
	rng := rand.New(rand.NewSource(puplocSeed))
	var t [puplocPerturbs][3]float32
	for i := range t {
		t[i][0] = 0.15 * (0.5 - rng.Float32())
		t[i][1] = 0.15 * (0.5 - rng.Float32())
		t[i][2] = 0.925 + 0.15*rng.Float32()
	}
	return t
}()

// locate returns the median over the perturbed starts of the refined pupil
// position, as pigo's RunDetector does, but deterministically.
func (pc *puplocCascade) locate(row, col, scale float32, g *grayImage) (float32, float32) {
	var rs, cs [puplocPerturbs]float32
	for i, p := range perturbTable {
		r, c, _ := pc.classify(row+scale*p[0], col+scale*p[1], scale*p[2], g)
		rs[i], cs[i] = r, c
	}
	sort.Slice(rs[:], func(a, b int) bool { return rs[a] < rs[b] })
	sort.Slice(cs[:], func(a, b int) bool { return cs[a] < cs[b] })
	return rs[puplocPerturbs/2], cs[puplocPerturbs/2]
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
