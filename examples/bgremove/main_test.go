package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunAgainstTheMock: the default run activates the in-process mock
// and cuts out the three samples: PNGs of their inputs' sizes with a
// transparent corner.
func TestRunAgainstTheMock(t *testing.T) {
	dst := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-dst", dst}, &out))
	assert.Contains(t, out.String(), "using the in-process background-removal mock")
	assert.Contains(t, out.String(), "activated the container")
	for i, name := range []string{"mug.png", "shoe.png", "plant.png"} {
		f, err := os.Open(filepath.Join(dst, name))
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Equal(t, 240+40*i, img.Bounds().Dx(), name)
		_, _, _, a := img.At(0, 0).RGBA()
		assert.Zero(t, a, name)
	}
}

func TestRunErrors(t *testing.T) {
	t.Setenv("PFC_BG_LICENSE_KEY", "")
	var out bytes.Buffer
	assert.Error(t, run(context.Background(), []string{"-url", "http://127.0.0.1:1"}, &out), "no key with -url")
	assert.Error(t, run(context.Background(), []string{"-src", t.TempDir()}, &out), "an empty folder")
	assert.Error(t, run(context.Background(), []string{"-mode", "landscape", "-dst", t.TempDir()}, &out), "a bad mode")
	assert.Error(t, run(context.Background(), []string{"extra"}, &out))
}
