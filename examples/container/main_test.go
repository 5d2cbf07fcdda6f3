package main

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunAgainstTheMock: the default run corrects the samples over HTTP
// and in direct file mode.
func TestRunAgainstTheMock(t *testing.T) {
	dst := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-dst", dst}, &out))
	assert.Contains(t, out.String(), "using the in-process container mock")
	for _, sub := range []string{"api", "direct"} {
		entries, err := os.ReadDir(filepath.Join(dst, sub))
		require.NoError(t, err)
		assert.Len(t, entries, 3, sub)
	}
	assert.Error(t, run(context.Background(), []string{"-input", "x"}, &out))
}

// TestPNGInputGivesJPEG: the correction asks for JPEG, so a PNG photo's
// results are named .jpg in both modes, and are JPEG.
func TestPNGInputGivesJPEG(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 320, 240))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	require.NoError(t, os.WriteFile(filepath.Join(src, "shot.png"), buf.Bytes(), 0o644))
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-src", src, "-dst", dst}, &out))
	for _, sub := range []string{"api", "direct"} {
		f, err := os.Open(filepath.Join(dst, sub, "shot.jpg"))
		require.NoError(t, err, sub)
		_, format, err := image.DecodeConfig(f)
		f.Close()
		require.NoError(t, err, sub)
		assert.Equal(t, "jpeg", format, sub)
		assert.NoFileExists(t, filepath.Join(dst, sub, "shot.png"), sub)
	}
}
