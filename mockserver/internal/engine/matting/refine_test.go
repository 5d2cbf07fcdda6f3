package matting

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLocalStatsFallsBackToImageMeans checks the fallback of a cell with
// no confident pixel within 4·radius: the whole image's mean colour of
// that class (summed only when a cell needs it), with variance 0.05; a
// cell with confident pixels nearby gets their weighted mean.
func TestLocalStatsFallsBackToImageMeans(t *testing.T) {
	t.Parallel()
	const w, h = 80, 4
	a := &analysis{w: w, h: h, raw: make([]float32, 3*w*h)}
	confFg := make([]bool, w*h)
	confBg := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			switch {
			case x < 2: // foreground: two shades of red
				confFg[p] = true
				a.raw[3*p] = 0.5 + 0.25*float32(x)
			case x >= w-2: // background: blue
				confBg[p] = true
				a.raw[3*p+2] = 1
			}
		}
	}
	// radius 2 looks up to 8 cells away: cell (1,0) sees only
	// foreground, cell (40,0) sees neither.
	stats, global := localStats(a, []int32{1, 40}, confFg, confBg, 2)
	require.Len(t, stats, 2)
	assert.True(t, global, "the image's means were used")

	near, far := stats[0], stats[1]
	assert.InDelta(t, 0.625, near.f[0], 0.125, "near cell: local foreground")
	assert.NotEqual(t, float32(0.05), near.varF)
	assert.Equal(t, [3]float32{0, 0, 1}, near.b, "near cell: image background mean")
	assert.Equal(t, float32(0.05), near.varB)

	assert.Equal(t, [3]float32{0.625, 0, 0}, far.f, "far cell: image foreground mean")
	assert.Equal(t, [3]float32{0, 0, 1}, far.b, "far cell: image background mean")
	assert.Equal(t, float32(0.05), far.varF)
	assert.Equal(t, float32(0.05), far.varB)
}

// TestListCellsNumbersInRasterOrder checks the parallel numbering against
// a walk in raster order, on sizes below and above one band.
func TestListCellsNumbersInRasterOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 1000, 1<<16 + 7, 3 << 17} {
		around := make([]bool, n)
		band := make([]bool, n)
		for i := range around {
			around[i] = rng.IntN(5) == 0
			band[i] = around[i] && rng.IntN(2) == 0
		}
		wantIndex := make([]int32, n)
		wantNeed, wantBand := []int32{}, []int32{}
		for i := range around {
			wantIndex[i] = -1
			if around[i] {
				wantIndex[i] = int32(len(wantNeed))
				wantNeed = append(wantNeed, int32(i))
			}
			if band[i] {
				wantBand = append(wantBand, int32(i))
			}
		}
		index, need, bandCells := listCells(around, band)
		assert.Equal(t, wantIndex, index, "n=%d index", n)
		assert.Equal(t, wantNeed, need, "n=%d need", n)
		assert.Equal(t, wantBand, bandCells, "n=%d band cells", n)
	}
}

// TestConfidentMeans checks the exported means against localStats' own
// (a cell far from any confident pixel takes them), on random planes.
func TestConfidentMeans(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	const w, h = 70, 50
	a := &analysis{w: w, h: h, raw: make([]float32, 3*w*h)}
	for i := range a.raw {
		a.raw[i] = rng.Float32()
	}
	confFg, confBg := make([]bool, w*h), make([]bool, w*h)
	conf := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < 10; x++ { // confident pixels only in the left columns
			p := y*w + x
			switch rng.IntN(3) {
			case 1:
				confFg[p], conf[p] = true, 1
			case 2:
				confBg[p], conf[p] = true, 2
			}
		}
	}
	stats, global := localStats(a, []int32{w - 1}, confFg, confBg, 2)
	require.True(t, global)
	fg, bg := ConfidentMeans(a.raw, conf)
	assert.Equal(t, stats[0].f, fg)
	assert.Equal(t, stats[0].b, bg)
	fg, bg = ConfidentMeans(nil, conf)
	assert.Equal(t, [3]float32{}, fg, "no pixels: zero means")
	assert.Equal(t, [3]float32{}, bg)
}
