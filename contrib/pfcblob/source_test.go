package pfcblob_test

import (
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/contrib/pfcblob"
)

// TestSourceIsAnFS: Source passes testing/fstest's checks of an fs.FS
// (over an S3-compatible server), folder markers and keys no fs name
// can give are left out, and a missing name is fs.ErrNotExist.
func TestSourceIsAnFS(t *testing.T) {
	t.Parallel()
	s3 := startS3(t, "in")
	b := openBucket(t, s3.URL, "in")
	for key, data := range map[string]string{
		"a.png": "A", "d/b.png": "BB", "d/e/c.png": "CCC", "d/e/": "", "x//y.png": "no fs name",
	} {
		require.NoError(t, b.WriteAll(t.Context(), key, []byte(data), nil))
	}
	src := pfcblob.Source(t.Context(), b)
	require.NoError(t, fstest.TestFS(src, "a.png", "d/b.png", "d/e/c.png"))
	got, err := fs.ReadFile(src, "d/e/c.png")
	require.NoError(t, err)
	assert.Equal(t, "CCC", string(got))
	_, err = src.Open("nope.png")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = fs.Stat(src, "d/nope")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = src.Open("../a.png")
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

// TestSourceLeavesTheBucket: Source does not set the bucket's io/fs
// callback, so two runs with their own contexts can share a bucket; a
// cancelled context stops the reads of its own source only.
func TestSourceLeavesTheBucket(t *testing.T) {
	t.Parallel()
	s3 := startS3(t, "in")
	b := openBucket(t, s3.URL, "in")
	require.NoError(t, b.WriteAll(t.Context(), "k.png", []byte("data"), nil))
	ctx, cancel := contextWithCancel(t)
	cancel()
	dead, live := pfcblob.Source(ctx, b), pfcblob.Source(t.Context(), b)
	_, err := dead.Open("k.png")
	assert.True(t, err != nil && !errors.Is(err, io.EOF), "a cancelled source reads nothing: %v", err)
	got, err := fs.ReadFile(live, "k.png")
	require.NoError(t, err)
	assert.Equal(t, "data", string(got))
}
