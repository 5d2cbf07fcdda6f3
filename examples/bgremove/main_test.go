package main

import (
	"bytes"
	"context"
	"flag"
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
	require.NoError(t, run(context.Background(), []string{"-dst", dst}, &out, &out))
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

// TestUsageHidesTheKey: -h prints the flags without the licence key
// from the environment (a flag's default would be printed).
func TestUsageHidesTheKey(t *testing.T) {
	const secret = "bg-licence-secret-9f3c"
	t.Setenv("PFC_BG_LICENSE_KEY", secret)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &stdout, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), "-license-key")
	assert.NotContains(t, stderr.String()+stdout.String(), secret)

	// The key still comes from the environment: with -url the run gets
	// past the key check, to its first request (cancelled here).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = run(ctx, []string{"-url", "http://127.0.0.1:1", "-dst", t.TempDir()}, &stdout, &stderr)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), secret)
}

func TestRunErrors(t *testing.T) {
	t.Setenv("PFC_BG_LICENSE_KEY", "")
	var out bytes.Buffer
	assert.Error(t, run(context.Background(), []string{"-url", "http://127.0.0.1:1"}, &out, &out), "no key with -url")
	assert.Error(t, run(context.Background(), []string{"-src", t.TempDir()}, &out, &out), "an empty folder")
	assert.Error(t, run(context.Background(), []string{"-mode", "landscape", "-dst", t.TempDir()}, &out, &out), "a bad mode")
	assert.Error(t, run(context.Background(), []string{"extra"}, &out, &out))
}
