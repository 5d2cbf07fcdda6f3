package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
)

// TestRunFileBuckets runs two shards over file:// buckets against a
// fleet of two mocks: together they do every image; a rerun does none.
func TestRunFileBuckets(t *testing.T) {
	t.Parallel()
	in, out := t.TempDir(), t.TempDir()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 16, 16))))
	for i := range 6 {
		p := filepath.Join(in, "shoot", fmt.Sprintf("i%d.png", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	}
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	env := func(k string) string {
		return map[string]string{"PFC_BG_LICENSE_KEY": bgmock.DefaultLicenseKey, "JOB_COMPLETION_INDEX": "1"}[k]
	}
	args := []string{"-url", fleet[0].URL + "," + fleet[1].URL, "-in", "file://" + in, "-in-prefix", "shoot",
		"-out", "file://" + out, "-out-prefix", "cut"}
	var total int
	for _, shard := range []string{"0/2", "2"} {
		var stdout, stderr bytes.Buffer
		code, err := run(context.Background(), append(args, "-shard", shard), env, &stdout, &stderr)
		require.NoError(t, err, stderr.String())
		require.Equal(t, 0, code, stdout.String())
		var done, skipped, failed int
		_, err = fmt.Sscanf(stdout.String()[strings.Index(stdout.String(), ":")+1:], " %d processed, %d already done, %d failed", &done, &skipped, &failed)
		require.NoError(t, err, stdout.String())
		total += done
	}
	assert.Equal(t, 6, total)
	pngs, err := filepath.Glob(filepath.Join(out, "cut", "*.png"))
	require.NoError(t, err)
	assert.Len(t, pngs, 6, "(fileblob keeps .attrs files beside them)")
	var stdout bytes.Buffer
	code, err := run(context.Background(), append(args, "-shard", "0/1"), env, &stdout, &stdout)
	require.NoError(t, err)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout.String(), "0 processed, 6 already done, 0 failed")

	for _, bad := range [][]string{{"-shard", "2/2"}, {"-shard", "x"}, {}} {
		a := append(args[:len(args):len(args)], bad...)
		if len(bad) == 0 {
			a = []string{"-in", "file://" + in}
		}
		code, err := run(context.Background(), a, env, &stdout, &stdout)
		assert.Error(t, err, "%q", bad)
		assert.Equal(t, 2, code)
	}
}
