package fileio

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jpg")
	require.NoError(t, os.WriteFile(file, []byte("12345"), 0o600))

	f, size, err := OpenParam("srcPath", file)
	require.NoError(t, err)
	assert.Equal(t, int64(5), size)
	require.NoError(t, f.Close())

	cases := []struct {
		name, path string
		is         []error
		invalid    bool
	}{
		{"missing", filepath.Join(dir, "nope.jpg"), []error{fs.ErrNotExist}, false},
		{"directory", dir, []error{ErrNotRegular}, true},
		{"empty", "", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, _, err := OpenParam("srcPath", tc.path)
			require.Nil(t, f)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "srcPath", fe.Param)
			assert.Contains(t, err.Error(), "srcPath")
			for _, want := range tc.is {
				assert.ErrorIs(t, err, want)
			}
			assert.Equal(t, tc.invalid, errors.Is(err, apierr.ErrInvalidParameter))
		})
	}
	_, _, err = Open(dir)
	assert.ErrorContains(t, err, "pfc: path ")
}

func TestSniffImage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		content []byte
		want    string
	}{
		{"jpeg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00rest"), "image/jpeg"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png"},
		{"text", []byte("hello, not an image"), ""},
		{"gif", []byte("GIF89a...."), ""},
		{"empty", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SniffImage(bytes.NewReader(tc.content), int64(len(tc.content)))
			if tc.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			assert.ErrorIs(t, err, ErrNotImage)
			assert.ErrorIs(t, err, apierr.ErrInvalidParameter)
		})
	}
	assert.Equal(t, "application/octet-stream", DetectContentType(nil, 3))
	assert.Equal(t, "application/octet-stream", DetectContentType(failingReader{}, 3))
}

type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }

func TestWriteFileAtomicNewFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.jpg")
	require.NoError(t, WriteFileAtomic(dst, func(w io.Writer) error {
		_, err := io.WriteString(w, "corrected")
		return err
	}))
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, "corrected", string(b))
	st, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	assertOnly(t, dir, "out.jpg")
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.jpg")
	require.NoError(t, os.WriteFile(dst, []byte("old"), 0o600))
	require.NoError(t, os.Chmod(dst, 0o600))
	require.NoError(t, WriteFileAtomic(dst, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	st, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, _ := os.ReadFile(dst)
	assert.Equal(t, "new", string(b))
}

func TestWriteFileAtomicFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.jpg")
	require.NoError(t, os.WriteFile(dst, []byte("old"), 0o644))
	boom := errors.New("download failed")
	err := WriteFileAtomic(dst, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return boom
	})
	assert.ErrorIs(t, err, boom)
	b, _ := os.ReadFile(dst)
	assert.Equal(t, "old", string(b), "destination untouched")
	assertOnly(t, dir, "out.jpg")

	// A destination that is a directory: refused, nothing left behind.
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	err = WriteFileAtomic(sub, func(w io.Writer) error { return nil })
	assert.ErrorIs(t, err, ErrNotRegular)
	assertOnly(t, dir, "out.jpg", "sub")

	// A missing directory.
	err = WriteFileAtomic(filepath.Join(dir, "no", "x.jpg"), func(io.Writer) error { return nil })
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Error(t, WriteFileAtomic("", func(io.Writer) error { return nil }))
	assert.Error(t, WriteFileAtomic(dst, nil))
}

// assertOnly checks that dir holds exactly names (no temporary file).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}

func TestCopyLimited(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		body            string
		declared, limit int64
		wantN           int64
		tooLarge        bool
	}{
		{"no limit", "abcdef", -1, 0, 6, false},
		{"under", "abc", -1, 5, 3, false},
		{"exactly", "abcde", 5, 5, 5, false},
		{"over, unknown length", "abcdef", -1, 5, 5, true},
		{"over, announced", "abcdef", 6, 5, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			n, err := CopyLimited(&out, strings.NewReader(tc.body), tc.declared, tc.limit)
			assert.Equal(t, tc.wantN, n)
			assert.Equal(t, int(tc.wantN), out.Len())
			if tc.tooLarge {
				assert.ErrorIs(t, err, apierr.ErrDownloadTooLarge)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// shortReader yields body, then err (io.EOF when nil).
type shortReader struct {
	body string
	err  error
}

func (r *shortReader) Read(p []byte) (int, error) {
	if r.body == "" {
		if r.err == nil {
			return 0, io.EOF
		}
		return 0, r.err
	}
	n := copy(p, r.body)
	r.body = r.body[n:]
	return n, nil
}

// TestCopyLimitedTruncated: a body cut off before its declared length (the
// read fails with io.ErrUnexpectedEOF, as net/http reports a short
// Content-Length, or it ends early) matches ErrTruncatedResponse, with and
// without a limit; other read errors are returned as they are.
func TestCopyLimitedTruncated(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset by peer")
	cases := []struct {
		name            string
		src             io.Reader
		declared, limit int64
		truncated       bool
		cause           error
	}{
		{"unexpected EOF, no limit", &shortReader{"abc", io.ErrUnexpectedEOF}, 6, 0, true, io.ErrUnexpectedEOF},
		{"unexpected EOF, limit", &shortReader{"abc", io.ErrUnexpectedEOF}, 6, 10, true, io.ErrUnexpectedEOF},
		{"unexpected EOF, length unknown", &shortReader{"abc", io.ErrUnexpectedEOF}, -1, 10, true, io.ErrUnexpectedEOF},
		{"clean end short of declared", &shortReader{"abc", nil}, 6, 0, true, io.ErrUnexpectedEOF},
		{"clean end short of declared, limit", &shortReader{"abc", nil}, 6, 10, true, io.ErrUnexpectedEOF},
		{"other error", &shortReader{"abc", reset}, 6, 10, false, reset},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			n, err := CopyLimited(&out, tc.src, tc.declared, tc.limit)
			assert.Equal(t, int64(3), n)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.cause)
			if tc.truncated {
				assert.ErrorIs(t, err, apierr.ErrTruncatedResponse)
				assert.Contains(t, err.Error(), "3")
			} else {
				assert.NotErrorIs(t, err, apierr.ErrTruncatedResponse)
			}
		})
	}
	assert.NoError(t, ShortBody(nil, 6, 6))
	assert.NoError(t, ShortBody(nil, 6, -1))
}

// TestDetectContentTypeMagic: the signature fast path of DetectContentType
// answers what http.DetectContentType answers, for the images it tells by
// their first bytes and for anything that only starts like them.
func TestDetectContentTypeMagic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	prefixes := []string{"", "\xFF", "\xFF\xD8", "\xFF\xD8\xFF", "\xFF\xD8\xFF\xE0", "\xFF\xFE", "\x89PNG", "\x89PNG\r\n\x1a", "\x89PNG\r\n\x1a\n",
		"\x89PNG\r\n\x1a\n\x00", "GIF89a", "<html>", " \xFF\xD8\xFF"}
	for _, p := range prefixes {
		for _, tail := range []int{0, 1, 5, 600} {
			b := []byte(p)
			for range tail {
				b = append(b, byte(rng.IntN(256)))
			}
			if len(b) == 0 {
				continue // an empty file is application/octet-stream (see above)
			}
			assert.Equal(t, http.DetectContentType(b), DetectContentType(bytes.NewReader(b), int64(len(b))), "%q", b[:min(len(b), 12)])
		}
	}
}
