//go:build unix

package bulk

import (
	"context"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// TestRunManifestFIFO: a named pipe at the manifest's path is refused
// without waiting on it; the call returns an error while its context is
// still bounded by a deadline (it used to block reading the pipe
// forever). The guard is generous: it only keeps a regression from
// hanging the suite.
func TestRunManifestFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	man := filepath.Join(dir, ManifestName)
	require.NoError(t, syscall.Mkfifo(man, 0o600))
	items := makeInputs(t, dir, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := Run(ctx, slices.Values(items), (&copyWork{}).do, Options[string]{Manifest: man})
		errc <- err
	}()
	select {
	case err := <-errc:
		require.Error(t, err)
		var me *pfc.ManifestError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, man, me.Path)
		assert.ErrorIs(t, err, fileio.ErrNotRegular)
	case <-time.After(time.Minute):
		t.Fatal("Run blocked on a named pipe at the manifest's path, past its context deadline")
	}
}
