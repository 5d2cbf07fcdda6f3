package fileio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// symlinkOrSkip makes link point to target, or skips the test where the
// platform (or its permissions) allows no symbolic links.
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// TestOpenNoFollow: a name a server chose is opened only as a regular file
// in its own directory; a symbolic link there is refused, wherever it
// points, while OpenParam (the caller's own path) still follows one.
func TestOpenNoFollow(t *testing.T) {
	t.Parallel()
	dir, elsewhere := t.TempDir(), t.TempDir()
	secret := filepath.Join(elsewhere, "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	plain := filepath.Join(dir, "plain.jpg")
	require.NoError(t, os.WriteFile(plain, []byte("12345"), 0o644))
	link := filepath.Join(dir, "evil.jpg")
	symlinkOrSkip(t, secret, link)
	dirLink := filepath.Join(dir, "dir.jpg")
	symlinkOrSkip(t, elsewhere, dirLink)

	f, size, err := OpenNoFollow("output", plain)
	require.NoError(t, err)
	assert.Equal(t, int64(5), size)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(b))
	require.NoError(t, f.Close())

	f, size, err = OpenParam("srcPath", link)
	require.NoError(t, err, "the caller's own path may be a link")
	assert.Equal(t, int64(6), size)
	require.NoError(t, f.Close())

	cases := []struct {
		name, path string
		is         []error
		symlink    bool
	}{
		{"link to a file elsewhere", link, []error{ErrSymlink, ErrNotRegular}, true},
		{"link to a directory", dirLink, []error{ErrSymlink, ErrNotRegular}, true},
		{"directory", dir, []error{ErrNotRegular}, false},
		{"missing", filepath.Join(dir, "nope.jpg"), []error{fs.ErrNotExist}, false},
		{"empty", "", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, size, err := OpenNoFollow("output", tc.path)
			require.Nil(t, f)
			assert.Zero(t, size)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "output", fe.Param)
			assert.Equal(t, tc.path, fe.Path)
			for _, want := range tc.is {
				assert.ErrorIs(t, err, want)
			}
			assert.Equal(t, tc.symlink, errors.Is(err, ErrSymlink))
			_, lerr := LstatRegular("output", tc.path)
			for _, want := range tc.is {
				assert.ErrorIs(t, lerr, want, "LstatRegular says the same")
			}
		})
	}
	st, err := LstatRegular("output", plain)
	require.NoError(t, err)
	assert.Equal(t, int64(5), st.Size())
}

// TestOpenNoFollowSwap: a symbolic link swapped in between the check and
// the open is refused, both by O_NOFOLLOW (where the platform has it) and
// by the fallback that compares the opened file with the checked one
// (flags 0, as on platforms without O_NOFOLLOW).
func TestOpenNoFollowSwap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags int
	}{{"platform flags", noFollowFlags}, {"fallback", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			secret := filepath.Join(t.TempDir(), "id_rsa")
			require.NoError(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
			path := filepath.Join(dir, "out.jpg")
			require.NoError(t, os.WriteFile(path, []byte("corrected"), 0o644))
			symlinkOrSkip(t, secret, filepath.Join(dir, "link"))

			f, _, err := openNoFollow("output", path, tc.flags, func() {
				require.NoError(t, os.Rename(filepath.Join(dir, "link"), path))
			})
			require.Nil(t, f)
			assert.ErrorIs(t, err, ErrNotRegular)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, path, fe.Path)
		})
	}
}
