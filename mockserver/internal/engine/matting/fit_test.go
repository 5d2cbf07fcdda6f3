package matting

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFitLongSide(t *testing.T) {
	for _, tc := range []struct{ w, h, max, ew, eh int }{
		{4000, 3000, 5000, 4000, 3000},
		{5000, 3000, 5000, 5000, 3000},
		{6000, 4000, 5000, 5000, 3333},
		{4000, 6000, 5000, 3333, 5000},
		{10000, 10000, 5000, 5000, 5000},
		{100000, 10, 5000, 5000, 1},
		{0, 10, 5000, 0, 10},
		{10, 10, 0, 10, 10},
	} {
		w, h := FitLongSide(tc.w, tc.h, tc.max)
		assert.Equal(t, [2]int{tc.ew, tc.eh}, [2]int{w, h}, "%+v", tc)
	}
	assert.Equal(t, 5000, MaxOutputLongSide)
}

func TestFitOutput(t *testing.T) {
	for _, tc := range []struct {
		w, h, ew, eh int
	}{
		{4000, 3000, 4000, 3000},   // 12 MP: fits
		{5000, 2800, 5000, 2800},   // 14 MP exactly
		{6000, 4000, 4582, 3054},   // long side first (5000×3333), then the area
		{4800, 4800, 3741, 3741},   // square: 23 MP would fit the long side
		{10000, 10000, 3741, 3741}, //
		{100000, 10, 5000, 1},      // thin: the long side decides
	} {
		w, h := FitOutput(tc.w, tc.h, MaxOutputLongSide, MaxOutputPixels)
		assert.Equal(t, [2]int{tc.ew, tc.eh}, [2]int{w, h}, "%+v", tc)
		assert.LessOrEqual(t, int64(w)*int64(h), int64(MaxOutputPixels))
		assert.LessOrEqual(t, max(w, h), MaxOutputLongSide)
	}
	w, h := FitOutput(6000, 4000, MaxOutputLongSide, 0)
	assert.Equal(t, [2]int{5000, 3333}, [2]int{w, h}, "no area limit")
}
