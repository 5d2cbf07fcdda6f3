//go:build unix

package fileio

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// A named pipe is refused before it is opened: opening one for reading
// blocks until a writer appears, so a test that regresses hangs here.
func TestOpenNamedPipe(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "in.jpg")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	f, _, err := OpenParam("srcPath", fifo)
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)
	assert.ErrorIs(t, err, apierr.ErrInvalidParameter)
	assert.ErrorContains(t, err, "srcPath")
}

// OpenNoFollow refuses a named pipe too, whether it is there at the check
// or swapped in after it (O_NONBLOCK: the open does not wait for a
// writer; a regression hangs here).
func TestOpenNoFollowNamedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.jpg")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	f, _, err := OpenNoFollow("output", fifo)
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)

	path := filepath.Join(dir, "swapped.jpg")
	require.NoError(t, os.WriteFile(path, []byte("corrected"), 0o644))
	f, _, err = openNoFollow("output", path, noFollowFlags, func() {
		require.NoError(t, os.Rename(fifo, path))
	})
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)
}
