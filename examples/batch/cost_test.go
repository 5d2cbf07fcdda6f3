package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunCapAndDryRun: -dry-run lists the plan and processes nothing;
// -max-starts stops after that many jobs (exit 3) and a rerun goes on;
// every run ends with the cost report.
func TestRunCapAndDryRun(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"hosted", "container", "bg"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			writeTinyImages(t, in, 3)
			batch := func(extra ...string) (int, string) {
				var stdout, stderr bytes.Buffer
				code, err := run(context.Background(), append([]string{"-api", api, "-in", in, "-out", out}, extra...), &stdout, &stderr)
				require.NoError(t, err, stderr.String())
				return code, stdout.String()
			}
			code, got := batch("-dry-run")
			assert.Equal(t, 0, code)
			assert.Contains(t, got, "nothing sent: 3 to process, 0 already done, 0 in flight to collect, 0 refused")
			assert.NoDirExists(t, out, "a dry run writes nothing")

			code, got = batch("-max-starts", "2")
			assert.Equal(t, 3, code)
			assert.Contains(t, got, "2 processed, 0 already done")
			assert.Contains(t, got, "jobs: 2 started, 0 collected from an earlier run, 0 redone")
			assert.Contains(t, got, "stopped at -max-starts 2: 1 not started")
			if api == "hosted" {
				assert.Contains(t, got, "usage: ")
			}

			code, got = batch("-dry-run")
			assert.Equal(t, 0, code)
			assert.Contains(t, got, "1 to process, 2 already done")

			code, got = batch()
			assert.Equal(t, 0, code)
			assert.Contains(t, got, "1 processed, 2 already done")
			assert.Contains(t, got, "jobs: 1 started")
		})
	}
}
