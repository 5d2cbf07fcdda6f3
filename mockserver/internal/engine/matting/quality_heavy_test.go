//go:build heavy

package matting

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// The textured portrait backgrounds are not solvable by the border model:
// portrait mode must be doing the work (guards the test set against
// becoming trivially easy). A property of the test scenes, not of the
// engine (six general-mode removals, the largest test of the package):
// it runs under the build tag heavy, as .ci/run's heavy step does.
func TestPortraitBackgroundsDefeatBorderModel(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("a property of the test scenes, not of the engine's goroutines: .ci/run runs it without the race detector")
	}
	c := NewCPU()
	worse := 0
	for _, seed := range portraitSeeds {
		img, truth, _ := testPortrait(seed)
		m, err := c.RemoveBackground(context.Background(), img, Options{Mode: ModeGeneral})
		require.NoError(t, err)
		if synth.IoU(m.Alpha, truth, iouThreshold) < portraitMinIoU {
			worse++
		}
	}
	assert.GreaterOrEqual(t, worse, len(portraitSeeds)/2)
}
