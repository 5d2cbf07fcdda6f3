package imageio

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeaderSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var pngData bytes.Buffer
	require.NoError(t, png.Encode(&pngData, naturalImage(30, 20, 1)))
	files := map[string][]byte{
		"a.jpg":     stdJPEG(t, naturalImage(64, 48, 1), 90),
		"a.png":     pngData.Bytes(),
		"text.txt":  []byte("not an image at all"),
		"short.png": pngData.Bytes()[:12], // the signature, no header chunk
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	for name, want := range map[string][2]int{
		"a.jpg": {64, 48}, "a.png": {30, 20}, "text.txt": {0, 0}, "short.png": {0, 0}, "missing": {0, 0},
	} {
		w, h := HeaderSize(filepath.Join(dir, name))
		assert.Equal(t, want, [2]int{w, h}, name)
	}
}
