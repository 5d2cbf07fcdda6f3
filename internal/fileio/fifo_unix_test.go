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

// OpenParam refuses a named pipe swapped in between its check and its
// open without waiting for a writer (O_NONBLOCK): the open blocked for
// good, past any context, and Run with it (a regression hangs here).
func TestOpenParamNamedPipeSwappedIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo, path := filepath.Join(dir, "p"), filepath.Join(dir, "in.jpg")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.WriteFile(path, []byte("image"), 0o644))
	f, _, err := openParam("srcPath", path, func() { require.NoError(t, os.Rename(fifo, path)) })
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)
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

// OpenFileNoFollow refuses a named pipe without waiting for a writer,
// even when opened for reading only (a regression hangs here).
func TestOpenFileNoFollowNamedPipe(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "m.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE | os.O_APPEND} {
		f, err := OpenFileNoFollow("manifest", fifo, flag, 0o644)
		require.Nil(t, f)
		assert.ErrorIs(t, err, ErrNotRegular)
		assert.ErrorContains(t, err, fifo)
	}
}

// The file OpenFileNoFollow returns is back in blocking mode.
func TestOpenFileNoFollowBlocking(t *testing.T) {
	t.Parallel()
	f, err := OpenFileNoFollow("manifest", filepath.Join(t.TempDir(), "m"), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	var flags uintptr
	require.NoError(t, rc.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}))
	assert.Zero(t, flags&syscall.O_NONBLOCK)
}
