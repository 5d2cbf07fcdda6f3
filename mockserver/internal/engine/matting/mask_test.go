package matting

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floodLabels is a straightforward reference labelling (BFS).
func floodLabels(mask []bool, w, h int, want, eight bool) ([]int32, []int) {
	labels := make([]int32, w*h)
	var areas []int
	for s := range mask {
		if mask[s] != want || labels[s] != 0 {
			continue
		}
		id := int32(len(areas) + 1)
		area := 0
		stack := []int{s}
		labels[s] = id
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			area++
			x, y := p%w, p/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx == 0 && dy == 0 || !eight && dx != 0 && dy != 0 {
						continue
					}
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					q := yy*w + xx
					if mask[q] == want && labels[q] == 0 {
						labels[q] = id
						stack = append(stack, q)
					}
				}
			}
		}
		areas = append(areas, area)
	}
	return labels, areas
}

func TestComponentsMatchesFloodFill(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		w, h := 1+r.IntN(30), 1+r.IntN(30)
		mask := make([]bool, w*h)
		density := r.Float64()
		for i := range mask {
			mask[i] = r.Float64() < density
		}
		for _, eight := range []bool{false, true} {
			for _, want := range []bool{false, true} {
				got, comps := components(mask, w, h, want, eight, nil)
				exp, areas := floodLabels(mask, w, h, want, eight)
				require.Equal(t, exp, got, "w=%d h=%d eight=%v want=%v", w, h, eight, want)
				require.Len(t, comps, len(areas))
				for i, c := range comps {
					assert.Equal(t, areas[i], c.area)
				}
			}
		}
	}
}

func TestFillHolesAndSlits(t *testing.T) {
	const w, h = 20, 20
	mask := make([]bool, w*h)
	// a ring with a 4×4 hole, and a U shape open at the top
	for y := 2; y < 10; y++ {
		for x := 2; x < 10; x++ {
			mask[y*w+x] = !(x >= 4 && x < 8 && y >= 4 && y < 8)
		}
	}
	fillHoles(mask, w, h, 100)
	assert.True(t, mask[5*w+5], "hole filled")
	mask = make([]bool, w*h)
	for y := 2; y < 18; y++ {
		for x := 2; x < 18; x++ {
			mask[y*w+x] = !(x == 9 || x == 10) || y > 15 // a 2-pixel slit open at the top
		}
	}
	fillSlits(mask, w, h, 3)
	assert.True(t, mask[5*w+9], "slit filled")
	assert.False(t, mask[1*w+9], "outside untouched")
}

func TestDilateErode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 50; iter++ {
		w, h := 1+r.IntN(25), 1+r.IntN(25)
		rad := r.IntN(4)
		mask := make([]bool, w*h)
		for i := range mask {
			mask[i] = r.Float64() < 0.2
		}
		d := dilate(mask, w, h, rad)
		e := erode(mask, w, h, rad)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				anyT, allT := false, true
				for yy := max(y-rad, 0); yy <= min(y+rad, h-1); yy++ {
					for xx := max(x-rad, 0); xx <= min(x+rad, w-1); xx++ {
						anyT = anyT || mask[yy*w+xx]
						allT = allT && mask[yy*w+xx]
					}
				}
				require.Equal(t, anyT, d[y*w+x])
				require.Equal(t, allT, e[y*w+x])
			}
		}
	}
}
