package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileHeader: the size from the header, and the cost doubled for the
// variants whose decoding holds twice the memory (a 16-bit PNG, a
// progressive JPEG); nothing for what is no readable JPEG or PNG.
func TestFileHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	encodePNG := func(m image.Image) []byte {
		var b bytes.Buffer
		require.NoError(t, png.Encode(&b, m))
		return b.Bytes()
	}
	deep := image.NewNRGBA64(image.Rect(0, 0, 30, 20))
	deep.SetNRGBA64(1, 1, color.NRGBA64{R: 0x1234, A: 0xffff}) // kept at 16 bits
	pngData := encodePNG(naturalImage(30, 20, 1))
	files := map[string][]byte{
		"a.jpg":    stdJPEG(t, naturalImage(64, 48, 1), 90),
		"prog.jpg": progressiveJPEG(64, 48, 3),
		// A stray byte before the frame header, which Go's decoder skips.
		"junk.jpg":  insertBefore(progressiveJPEG(64, 48, 3), []byte{0xff, markerSOF2}, []byte{0x00}),
		"a.png":     pngData,
		"deep.png":  encodePNG(deep),
		"text.txt":  []byte("not an image at all"),
		"short.png": pngData[:12], // the signature, no header chunk
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	for name, want := range map[string]struct {
		ok   bool
		w, h int
		wide bool
	}{
		"a.jpg": {true, 64, 48, false}, "prog.jpg": {true, 64, 48, true}, "junk.jpg": {true, 64, 48, true},
		"a.png": {true, 30, 20, false}, "deep.png": {true, 30, 20, true},
		"text.txt": {}, "short.png": {}, "missing": {},
	} {
		h, ok := FileHeader(filepath.Join(dir, name))
		require.Equal(t, want.ok, ok, name)
		if !ok {
			continue
		}
		assert.Equal(t, [2]int{want.w, want.h}, [2]int{h.Width, h.Height}, name)
		assert.Equal(t, want.wide, h.Wide, name)
		cost := int64(want.w * want.h)
		if want.wide {
			cost *= 2
		}
		assert.Equal(t, cost, h.Cost(), name)
	}
	assert.Zero(t, Header{}.Cost())
}
