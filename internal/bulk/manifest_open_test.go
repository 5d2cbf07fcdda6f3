package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestRunManifestSymlink: a symbolic link planted at the manifest's path
// is refused, not followed: the file it points to keeps its last line and
// gets no record; the error names the manifest.
func TestRunManifestSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := refusedManifest(t, dir, filepath.Join(t.TempDir(), "notes.txt"), "open", os.Symlink)
	assert.ErrorIs(t, err, fileio.ErrSymlink)
	items := makeInputs(t, dir, 2)
	w := &copyWork{}

	// A dangling link is not created through either.
	dangling := filepath.Join(dir, "dangling.jsonl")
	require.NoError(t, os.Symlink(filepath.Join(dir, "created-elsewhere"), dangling))
	_, err = Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: dangling})
	assert.ErrorIs(t, err, fileio.ErrSymlink)
	assert.NoFileExists(t, filepath.Join(dir, "created-elsewhere"))
}

// TestRunManifestNotAManifest: a file at the manifest's path whose last
// line, without its newline, is no torn record (a hard link to a user's
// file planted there, or a path that names another file) is refused, not
// cut: the file keeps its last line and gets no record.
func TestRunManifestNotAManifest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := refusedManifest(t, dir, filepath.Join(dir, "notes.txt"), "read", os.Link)
	assert.ErrorIs(t, err, pfc.ErrNotManifest, "a program tells it apart with the public sentinel")
}

// TestRunManifestUserFileWithNewline: a user's file at the manifest's
// path whose every line ends with a newline (a text file, a pretty-printed
// JSON document) is no manifest either: its first line is no record. It
// is refused (pfc.ErrNotManifest), also by a dry run, and gets no record
// appended; an empty file still starts a manifest.
func TestRunManifestUserFileWithNewline(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"# notes\nline two\n", "{\n  \"id\": \"x\"\n}\n", "\n[1,2]\n"} {
		dir := t.TempDir()
		man := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(man, []byte(content), 0o644))
		items := makeInputs(t, dir, 1)
		w := &copyWork{}
		for _, dry := range []bool{false, true} {
			_, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man, DryRun: dry})
			var me *pfc.ManifestError
			require.ErrorAs(t, err, &me, "%q dry %v", content, dry)
			assert.ErrorIs(t, err, pfc.ErrNotManifest, "%q dry %v", content, dry)
		}
		got, err := os.ReadFile(man)
		require.NoError(t, err)
		assert.Equal(t, content, string(got), "the user's file is untouched")
		assert.Zero(t, w.count(items[0].ID), "nothing ran")
	}
	dir := t.TempDir()
	man := filepath.Join(dir, ManifestName)
	require.NoError(t, os.WriteFile(man, nil, 0o644))
	rep, err := Run(context.Background(), slices.Values(makeInputs(t, dir, 1)), (&copyWork{}).do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
}

// refusedManifest writes a user's file at target, plants it at dir's
// manifest path with plant (os.Symlink, os.Link), runs two items there and
// checks that the manifest is refused by the step op, naming it, while the
// file keeps its content (a last line without newline, which a manifest
// would cut as a torn record) and nothing runs. It returns Run's error.
func refusedManifest(t *testing.T, dir, target, op string, plant func(oldname, newname string) error) error {
	t.Helper()
	const content = "first line\nlast line without newline"
	require.NoError(t, os.WriteFile(target, []byte(content), 0o644))
	man := filepath.Join(dir, ManifestName)
	if err := plant(target, man); err != nil {
		t.Skipf("no such links here: %v", err)
	}
	items := makeInputs(t, dir, 2)
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man})
	assert.Nil(t, rep)
	var me *pfc.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, man, me.Path)
	assert.Equal(t, op, me.Op)
	assert.ErrorContains(t, err, man)
	got, rerr := os.ReadFile(target)
	require.NoError(t, rerr)
	assert.Equal(t, content, string(got), "the user's file is untouched")
	assert.Zero(t, w.count(items[0].ID), "nothing ran")
	return err
}

// TestRunManifestNotRegular: a directory at the manifest's path is refused
// with an error naming the manifest.
func TestRunManifestNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	man := filepath.Join(dir, "m")
	require.NoError(t, os.Mkdir(man, 0o755))
	_, err := Run(context.Background(), slices.Values(makeInputs(t, dir, 1)), (&copyWork{}).do, Options[string]{Manifest: man})
	var me *pfc.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, man, me.Path)
	assert.Equal(t, "open", me.Op)
}

// TestRunManifestInUse: a second run of a manifest while the first holds
// it is refused (one run at a time per manifest); once the first ends, a
// rerun takes it.
func TestRunManifestInUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 1)
	man := filepath.Join(dir, ManifestName)
	started, release := make(chan struct{}), make(chan struct{})
	w := &copyWork{before: func(ctx context.Context, it Item) error {
		close(started)
		<-release
		return nil
	}}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man})
		errc <- err
	}()
	<-started
	_, err := Run(context.Background(), slices.Values(items), (&copyWork{}).do, Options[string]{Manifest: man})
	close(release)
	require.NoError(t, <-errc)
	if errors.Is(err, errors.ErrUnsupported) || err == nil {
		t.Skip("no file locks here")
	}
	var me *pfc.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "lock", me.Op)
	assert.ErrorIs(t, err, pfc.ErrManifestInUse)
	rep, err := Run(context.Background(), slices.Values(items), (&copyWork{}).do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Skipped)
}
