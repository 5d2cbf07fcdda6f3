//go:build heavy

package engine

// Tests whose subject is size, too slow for every "go test ./...": .ci/run
// runs them in its heavy step (go test -tags heavy, without the race
// detector).

import (
	"bytes"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// TestBackgroundRemovalOutputFitsTheLimit: a background-removal result is
// at most 5000 px on the long side and about 14 MP (the hosted API's limit): a
// 4800×4800 input, whose long side already fits, does not give a 23 MP
// image.
func TestBackgroundRemovalOutputFitsTheLimit(t *testing.T) {
	t.Parallel()
	src := encodeJPEG(t, scene(4800, 4800))
	res, out := process(t, src, Request{Preset: "none", OutputType: "jpg",
		Background: &matting.Background{Kind: matting.Color, Color: color.NRGBA{R: 255, A: 255}}})
	assert.Equal(t, [2]int{3741, 3741}, [2]int{res.Width, res.Height})
	assert.LessOrEqual(t, res.Width*res.Height, matting.MaxOutputPixels)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, [2]int{3741, 3741}, [2]int{cfg.Width, cfg.Height})
	assert.Equal(t, [2]int{4800, 4800}, [2]int{res.OriginalWidth, res.OriginalHeight})
}
