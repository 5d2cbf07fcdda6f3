package fileio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// TestOpenParamScopedPinned: with a Scope pinning path to the file that
// was listed, that file opens; a link or another file put in its place
// does not, and a path the Scope does not pin opens as OpenParam does
// (links followed).
func TestOpenParamScopedPinned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jpg")
	require.NoError(t, os.WriteFile(path, []byte("listed"), 0o644))
	st, err := os.Lstat(path)
	require.NoError(t, err)
	id := IDOf(st)
	require.False(t, id.IsZero())
	assert.True(t, FileID{}.IsZero())
	assert.False(t, FileID{}.Same(st))
	scope := &Scope{Src: path, SrcID: id}
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("listed"), 0o644))

	f, size, err := OpenParamScoped(scope, "srcPath", path)
	require.NoError(t, err)
	assert.Equal(t, int64(6), size)
	require.NoError(t, f.Close())

	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	link := filepath.Join(dir, "link.jpg")
	symlinkOrSkip(t, secret, link)
	f, _, err = OpenParamScoped(scope, "srcPath", link)
	require.NoError(t, err, "a path the scope does not pin follows links")
	require.NoError(t, f.Close())

	require.NoError(t, os.Rename(link, path))
	f, _, err = OpenParamScoped(scope, "srcPath", path)
	require.Nil(t, f)
	var fe *FileError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "srcPath", fe.Param)
	assert.Equal(t, path, fe.Path)
	assert.ErrorIs(t, err, ErrSymlink)
	assert.ErrorIs(t, err, apierr.ErrInvalidParameter)

	// Same content, another file (made while the listed one existed, so
	// another inode), renamed into place.
	require.NoError(t, os.Rename(other, path))
	f, _, err = OpenParamScoped(scope, "srcPath", path)
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)
	assert.NotErrorIs(t, err, ErrSymlink)
	assert.ErrorContains(t, err, "not the file that was listed")

	f, _, err = OpenParamScoped(nil, "srcPath", path)
	require.NoError(t, err, "no scope: OpenParam")
	require.NoError(t, f.Close())
}

// TestWriteFileAtomicScopedTag: a Scope's TempTag names the temporary
// file; an unusable tag is ignored; no Scope keeps the plain name.
func TestWriteFileAtomicScopedTag(t *testing.T) {
	t.Parallel()
	for tag, want := range map[string]string{
		"0123abcd-ff":                    ".out.jpg.0123abcd-ff.",
		"":                               ".out.jpg.",
		"../x":                           ".out.jpg.",
		strings.Repeat("a", maxTagLen+1): ".out.jpg.",
	} {
		dir := t.TempDir()
		dst := filepath.Join(dir, "out.jpg")
		var seen []string
		scope := &Scope{TempTag: tag}
		require.NoError(t, WriteFileAtomicScoped(scope, dst, func(w io.Writer) error {
			seen = dirNames(t, dir)
			_, err := io.WriteString(w, "x")
			return err
		}))
		require.Len(t, seen, 1)
		assert.True(t, strings.HasPrefix(seen[0], want), "%q: %s", tag, seen[0])
		rest := strings.TrimSuffix(strings.TrimPrefix(seen[0], want), ".partial")
		assert.Regexp(t, `^[0-9]+$`, rest, "%q: %s", tag, seen[0])
		assertOnly(t, dir, "out.jpg")
	}
	// A tag keeps the longest name within 255 bytes.
	tag := strings.Repeat("t", maxTagLen)
	name := strings.Replace(tempPattern(strings.Repeat("n", 255), tag), "*", "4294967295", 1)
	assert.Len(t, name, 255)
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

// TestOpenFileNoFollow: a regular file opens (created if asked); a link
// at the path, dangling or not, is refused and nothing is created through
// it; a directory is refused.
func TestOpenFileNoFollow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	f, err := OpenFileNoFollow("manifest", path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString("line\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	target := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link.jsonl")
	symlinkOrSkip(t, target, link)
	dangling := filepath.Join(dir, "dangling.jsonl")
	symlinkOrSkip(t, filepath.Join(dir, "made-through-link"), dangling)
	for _, p := range []string{link, dangling} {
		f, err := OpenFileNoFollow("manifest", p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
		require.Nil(t, f)
		var fe *FileError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "manifest", fe.Param)
		assert.Equal(t, p, fe.Path)
		assert.ErrorIs(t, err, ErrSymlink)
	}
	assert.NoFileExists(t, filepath.Join(dir, "made-through-link"))
	b, _ := os.ReadFile(target)
	assert.Equal(t, "keep", string(b))

	f, err = OpenFileNoFollow("manifest", dir, os.O_RDONLY, 0)
	require.Nil(t, f)
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = OpenFileNoFollow("manifest", "", os.O_RDONLY, 0)
	assert.ErrorIs(t, err, apierr.ErrInvalidParameter)
}

// TestTryLock: a second open file cannot take the lock while the first
// holds it, and can once the first is closed.
func TestTryLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.jsonl")
	a, err := os.Create(path)
	require.NoError(t, err)
	if err := TryLock(a); errors.Is(err, errors.ErrUnsupported) {
		a.Close()
		t.Skip("no file locks here")
	} else {
		require.NoError(t, err)
	}
	b, err := os.Open(path)
	require.NoError(t, err)
	defer b.Close()
	assert.ErrorIs(t, TryLock(b), ErrLocked)
	require.NoError(t, a.Close())
	assert.NoError(t, TryLock(b))
}
