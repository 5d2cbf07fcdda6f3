package bulk

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// TestDir: images only, recursively, in lexical order, hidden entries and
// an output directory inside the input left out, Rename applied.
func TestDir(t *testing.T) {
	t.Parallel()
	in := t.TempDir()
	for _, p := range []string{"b.JPG", "a.png", "sub/c.jpeg", "notes.txt", ".hidden.jpg", ".git/d.jpg", "out/e.jpg", "sub/out/f.jpg"} {
		full := filepath.Join(in, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
	}
	out := filepath.Join(in, "out")
	items, err := Dir(in, out, DirOptions{})
	require.NoError(t, err)
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
		assert.Equal(t, filepath.Join(out, filepath.FromSlash(it.ID)), it.Dst)
		assert.Equal(t, filepath.Join(in, filepath.FromSlash(it.ID)), it.Src)
	}
	assert.Equal(t, []string{"a.png", "b.JPG", "sub/c.jpeg", "sub/out/f.jpg"}, ids)

	items, err = Dir(in, t.TempDir(), DirOptions{Exts: []string{".txt"}, Rename: func(rel string) string {
		return strings.TrimSuffix(rel, filepath.Ext(rel)) + ".png"
	}})
	require.NoError(t, err)
	require.Len(t, items, 1)
	assert.Equal(t, "notes.txt", items[0].ID)
	assert.Equal(t, "notes.png", filepath.Base(items[0].Dst))
}

func TestDirErrors(t *testing.T) {
	t.Parallel()
	_, err := Dir("", "", DirOptions{})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"inDir", "outDir"}, ve.Fields())
	in := t.TempDir()
	_, err = Dir(in, in+string(filepath.Separator), DirOptions{})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"outDir"}, ve.Fields())
	_, err = Dir(filepath.Join(t.TempDir(), "missing"), "out", DirOptions{})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestDirRoot: a symbolic link to a folder is listed as the folder; a
// file given as the folder is a field error naming inDir, not one item
// whose output is outDir itself.
func TestDirRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	real := filepath.Join(base, "photos")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "sub"), 0o755))
	for _, p := range []string{"a.jpg", "sub/b.png"} {
		require.NoError(t, os.WriteFile(filepath.Join(real, p), []byte("x"), 0o644))
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	out := filepath.Join(base, "out")
	items, err := Dir(link, out, DirOptions{})
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, "a.jpg", items[0].ID)
	assert.Equal(t, filepath.Join(out, "sub", "b.png"), items[1].Dst)

	_, err = Dir(filepath.Join(real, "a.jpg"), out, DirOptions{})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "inDir", ve.Errors[0].Field)

	// Through the link, the folder has two names: outputs into the real
	// one would replace the inputs, and an output folder inside it would
	// be read back as input.
	_, err = Dir(link, real, DirOptions{})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "outDir", ve.Errors[0].Field)
	require.NoError(t, os.MkdirAll(filepath.Join(real, "out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "out", "old.jpg"), []byte("x"), 0o644))
	items, err = Dir(link, filepath.Join(real, "out"), DirOptions{})
	require.NoError(t, err)
	assert.Len(t, items, 2, "out/old.jpg is not an input")

	_, err = Dir(filepath.Join(base, "missing"), out, DirOptions{})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestDirThroughALinkedWorkingDirectory: relative folders under a working
// directory reached through a symbolic link ($PWD keeps the link) are
// compared resolved on both sides: the output folder inside the input is
// still skipped, and the input under its real name is refused as output.
// Not parallel: it changes the working directory.
func TestDirThroughALinkedWorkingDirectory(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "in", "out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "in", "a.jpg"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(real, "in", "out", "old.jpg"), []byte("x"), 0o644))
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	t.Chdir(link)
	t.Setenv("PWD", link)

	items, err := Dir("in", filepath.Join("in", "out"), DirOptions{})
	require.NoError(t, err)
	require.Len(t, items, 1, "in/out/old.jpg is not an input")
	assert.Equal(t, "a.jpg", items[0].ID)

	_, err = Dir("in", filepath.Join(real, "in"), DirOptions{})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "outDir", ve.Errors[0].Field)
}

// TestDirInputReplacedAfterListing: an input replaced after Dir listed it,
// by a symbolic link (to a file outside inDir) or by another file, is not
// read: the item fails with a file error naming srcPath, and nothing is
// written for it. The others are done.
func TestDirInputReplacedAfterListing(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	in, out := filepath.Join(base, "in"), filepath.Join(base, "out")
	require.NoError(t, os.MkdirAll(in, 0o755))
	for _, name := range []string{"a.jpg", "b.jpg", "c.jpg"} {
		require.NoError(t, os.WriteFile(filepath.Join(in, name), []byte("input "+name), 0o644))
	}
	secret := filepath.Join(t.TempDir(), "id_rsa.jpg")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	items, err := Dir(in, out, DirOptions{})
	require.NoError(t, err)
	require.Len(t, items, 3)
	for _, it := range items {
		assert.False(t, it.Listed.IsZero(), it.ID)
	}

	// After the listing: a.jpg becomes a link to the secret, b.jpg another
	// file under the same name (made while every listed file exists, so
	// that it cannot reuse one's inode).
	other := filepath.Join(in, ".other")
	require.NoError(t, os.WriteFile(other, []byte("swapped in"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(in, "a.jpg")))
	if err := os.Symlink(secret, filepath.Join(in, "a.jpg")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	require.NoError(t, os.Rename(other, filepath.Join(in, "b.jpg")))

	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Concurrency: 1})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	require.Equal(t, 2, rep.Failed)
	for _, f := range rep.Failures {
		var fe *fileio.FileError
		require.ErrorAs(t, f.Err, &fe, f.Item.ID)
		assert.Equal(t, "srcPath", fe.Param)
		assert.ErrorIs(t, f.Err, fileio.ErrNotRegular, f.Item.ID)
		assert.ErrorIs(t, f.Err, apierr.ErrInvalidParameter, f.Item.ID)
		assert.NoFileExists(t, f.Item.Dst, "nothing written for %s", f.Item.ID)
	}
	assert.ErrorIs(t, rep.Failures[0].Err, fileio.ErrSymlink, "a.jpg")
	got, err := os.ReadFile(filepath.Join(out, "c.jpg"))
	require.NoError(t, err)
	assert.Equal(t, "input c.jpg", string(got))
	assert.Equal(t, []string{"c.jpg"}, dirNames(t, out))
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
