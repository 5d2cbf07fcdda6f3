package main

import (
	"bytes"
	"context"
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
