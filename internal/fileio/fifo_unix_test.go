//go:build unix

package fileio

import (
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
