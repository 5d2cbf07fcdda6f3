package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestMain makes every run of the command in this binary, in process or
// in a child process (the binary again), poll its jobs every 2 to 20 ms:
// the mocks answer in milliseconds, and the clients' defaults (from 250
// or 500 ms up, made for real services) would make the tests wait, not
// work. The tests mostly wait, on child processes and on the mocks'
// processing delays: more of them run at once (streamtest.MoreParallel).
func TestMain(m *testing.M) {
	fast := pfc.WaitOptions{MinDelay: 2 * time.Millisecond, MaxDelay: 20 * time.Millisecond}
	hostedOpts = []hosted.Option{hosted.WithPolling(fast)}
	bgOpts = []bgcontainer.Option{bgcontainer.WithPolling(fast)}
	streamtest.MoreParallel()
	os.Exit(m.Run())
}

// TestRun runs the command against each in-process mock, twice: the
// second run finds everything done.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-api", "hosted"}, {"-api", "container"}, {"-api", "container", "-direct"}, {"-api", "bg"}} {
		t.Run(args[len(args)-1], func(t *testing.T) {
			t.Parallel()
			in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			require.NoError(t, writeSamples(in, 3))
			for i, want := range []string{"3 processed, 0 already done, 0 failed", "0 processed, 3 already done, 0 failed"} {
				var stdout, stderr bytes.Buffer
				code, err := run(context.Background(), append([]string{"-in", in, "-out", out}, args...), &stdout, &stderr)
				require.NoError(t, err, "run %d", i)
				assert.Equal(t, 0, code)
				assert.Contains(t, stdout.String(), want)
			}
		})
	}
}

// TestUsageHidesTheKey: -h prints the flags without the key from the
// environment (a flag's default would be printed).
func TestUsageHidesTheKey(t *testing.T) {
	const secret, bgSecret = "hosted-key-secret-5b1e", "bg-licence-secret-77d0"
	t.Setenv("PFC_API_KEY", secret)
	t.Setenv("PFC_BG_LICENSE_KEY", bgSecret)
	var stdout, stderr bytes.Buffer
	code, err := run(context.Background(), []string{"-h"}, &stdout, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "-api-key")
	assert.Contains(t, stderr.String(), "-license-key")
	assert.NotContains(t, stderr.String()+stdout.String(), secret)
	assert.NotContains(t, stderr.String()+stdout.String(), bgSecret)

	// The key still comes from the environment: with -url the run gets
	// past the key check (an error) to the bulk run of an empty folder,
	// cancelled in case it would send anything.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = run(ctx, []string{"-url", "http://127.0.0.1:1/v2", "-in", t.TempDir(), "-out", t.TempDir()}, &stdout, &stderr)
	require.NoError(t, err)
	assert.NotContains(t, stderr.String()+stdout.String(), secret)
	assert.NotContains(t, stderr.String()+stdout.String(), bgSecret)
}

func TestRunBadFlags(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code, err := run(context.Background(), []string{"-api", "nope"}, &stdout, &stderr)
	assert.Error(t, err)
	assert.Equal(t, 2, code)
	code, err = run(context.Background(), []string{"-api", "hosted", "-url", "http://127.0.0.1:1/v2", "-api-key", "", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-api-key")
	assert.Equal(t, 2, code)

	// -api bg takes its licence key from -license-key, never -api-key,
	// which is the hosted API's.
	code, err = run(context.Background(), []string{"-api", "bg", "-url", "http://127.0.0.1:1", "-license-key", "", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-license-key (or $PFC_BG_LICENSE_KEY)")
	assert.Equal(t, 2, code)
	code, err = run(context.Background(), []string{"-api", "bg", "-api-key", "k", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-license-key")
	assert.Equal(t, 2, code)
	code, err = run(context.Background(), []string{"-api", "hosted", "-license-key", "k", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-api bg")
	assert.Equal(t, 2, code)
	code, err = run(context.Background(), []string{"-api", "container", "-cleanup-timeout", "1s", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-cleanup-timeout applies to -api bg only")
	assert.Equal(t, 2, code)
	code, err = run(context.Background(), []string{"-api", "bg", "-cleanup-timeout", "-1s", "-in", t.TempDir()}, &stdout, &stderr)
	assert.ErrorContains(t, err, "-cleanup-timeout must not be negative")
	assert.Equal(t, 2, code)
}
