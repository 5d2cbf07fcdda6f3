package bulk

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// TestRunCleanupSparesOtherRuns: two runs write into one output folder
// with different manifests. The second's start-up cleanup must leave the
// first's in-flight temporary file alone (it used to remove it, and the
// first run's item then failed renaming it), and a temporary file of no
// manifest (a single call's) too.
func TestRunCleanupSparesOtherRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	items := makeInputs(t, dir, 2)
	writing, release := make(chan struct{}), make(chan struct{})
	first := func(ctx context.Context, it Item) (string, error) {
		return "", fileio.WriteFileAtomicScoped(it.Scope, it.Dst, func(w io.Writer) error {
			_, _ = io.WriteString(w, "first run")
			close(writing)
			<-release
			return nil
		})
	}
	errc := make(chan error, 1)
	var rep1 *Report[string]
	go func() {
		var err error
		rep1, err = Run(context.Background(), slices.Values(items[:1]), first,
			Options[string]{Manifest: filepath.Join(dir, "first.jsonl")})
		errc <- err
	}()
	<-writing
	single := filepath.Join(out, ".single.jpg.123.partial") // another writer's
	require.NoError(t, os.WriteFile(single, []byte("half"), 0o600))
	temps := partials(t, out)
	require.Len(t, temps, 2, "the first run's temporary file and the single call's")

	w := &copyWork{}
	rep2, err := Run(context.Background(), slices.Values(items[1:]), w.do,
		Options[string]{Manifest: filepath.Join(dir, "second.jsonl")})
	require.NoError(t, err)
	assert.Equal(t, 1, rep2.Done)
	assert.ElementsMatch(t, temps, partials(t, out), "the second run removed none of them")

	close(release)
	require.NoError(t, <-errc)
	assert.Equal(t, 1, rep1.Done, "%v", rep1.Failures)
	got, err := os.ReadFile(items[0].Dst)
	require.NoError(t, err)
	assert.Equal(t, "first run", string(got))
	assert.Equal(t, []string{filepath.Base(single)}, partials(t, out))
}

// TestRunCleanupRemovesDeadRunsOfItsManifest: what a dead run of the
// same manifest left (its key, another token) is removed; a file of the
// same shape for another manifest is not.
func TestRunCleanupRemovesDeadRunsOfItsManifest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	man := filepath.Join(dir, "run.jsonl")
	dead := ".a.jpg." + manifestKey(man) + "-0badf00d.17.partial"
	other := ".a.jpg." + manifestKey(filepath.Join(dir, "other.jsonl")) + "-0badf00d.17.partial"
	for _, name := range []string{dead, other} {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("half"), 0o600))
	}
	rep, err := Run(context.Background(), slices.Values(makeInputs(t, dir, 1)), (&copyWork{}).do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	if errors.Is(fileio.TryLock(nil), errors.ErrUnsupported) {
		return // no lock: nothing is provably dead, nothing removed
	}
	assert.Equal(t, []string{other}, partials(t, out))
}

// TestRunTempNames: the work's temporary files carry the manifest's key
// and a token of the run; without a manifest they keep the plain name.
func TestRunTempNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 1)
	man := filepath.Join(dir, "m.jsonl")
	for _, manifest := range []string{man, ""} {
		var name string
		work := func(ctx context.Context, it Item) (string, error) {
			return "", fileio.WriteFileAtomicScoped(it.Scope, it.Dst, func(io.Writer) error {
				name = partials(t, filepath.Dir(it.Dst))[0]
				return nil
			})
		}
		_, err := Run(context.Background(), slices.Values(items), work, Options[string]{Manifest: manifest})
		require.NoError(t, err)
		if manifest == "" {
			assert.NotContains(t, name, manifestKey(man), name)
			continue
		}
		assert.True(t, strings.HasPrefix(name, ".img0000.jpg."+manifestKey(man)+"-"), name)
		assert.False(t, deadTemp(name, manifestKey(man), name[len(".img0000.jpg.")+keyLen+1:][:tokenLen]), "its own")
		assert.True(t, deadTemp(name, manifestKey(man), "ffffffff"), "another run's view")
	}
}
