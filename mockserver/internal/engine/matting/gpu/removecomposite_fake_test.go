//go:build linux

package gpu

import (
	"context"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// TestRemoveAndCompositeOnFakeDriver checks that RemoveAndComposite
// uploads the image once (for the removal) and neither the image nor the
// matte again for the composite, which reads the run's device copies;
// an image with padded rows is composited by the engine's Composite.
func TestRemoveAndCompositeOnFakeDriver(t *testing.T) {
	t.Parallel()
	f := newFakeDriver()
	e, err := newEngine(f, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close()) }()
	img := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	bytesUp := func(fn func()) int {
		f.mu.Lock()
		f.uploaded = 0
		f.mu.Unlock()
		fn()
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.uploaded
	}
	ctx := context.Background()
	for _, spill := range []bool{false, true} {
		o := matting.Options{SpillReduction: spill}
		removal := bytesUp(func() { _, err = e.RemoveBackground(ctx, img, o) })
		require.NoError(t, err)
		var m *matting.Matte
		var out *image.NRGBA
		both := bytesUp(func() { m, out, err = e.RemoveAndComposite(ctx, img, o, matting.Background{}) })
		require.NoError(t, err)
		assert.Equal(t, img.Rect, out.Rect)
		assert.Equal(t, spill, m.Foreground != nil)
		assert.Equal(t, removal, both, "spill %v: nothing more uploaded for the composite", spill)
		alone := bytesUp(func() { _, err = e.Composite(ctx, img, m, matting.Background{}) })
		require.NoError(t, err)
		assert.GreaterOrEqual(t, alone, len(img.Pix)+len(m.Alpha.Pix), "a separate Composite uploads the image and the matte")
	}
	padded := image.NewNRGBA(image.Rect(0, 0, 310, 200)).SubImage(image.Rect(0, 0, 300, 200)).(*image.NRGBA)
	_, out, err := e.RemoveAndComposite(ctx, padded, matting.Options{}, matting.Background{})
	require.NoError(t, err)
	assert.Equal(t, padded.Rect, out.Rect)
}
