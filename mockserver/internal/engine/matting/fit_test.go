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
