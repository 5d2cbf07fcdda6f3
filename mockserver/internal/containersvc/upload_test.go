package containersvc

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUploadStoresFileUnderKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tc := range []struct{ ct, ext string }{
		{"image/jpeg", ".jpg"},
		{"image/png", ".png"},
		{"image/jpeg; charset=binary", ".jpg"},
	} {
		data := []byte("bytes of " + tc.ct)
		res, herr := f.svc.Upload(t.Context(), tc.ct, bytes.NewReader(data))
		require.Nil(t, herr)
		assert.Regexp(t, `^[0-9a-f]{32}\`+tc.ext+`$`, res.ImageKey)
		got, err := os.ReadFile(filepath.Join(f.svc.Mounts().Input, res.ImageKey))
		require.NoError(t, err)
		assert.Equal(t, data, got)
	}
	assertNoTemporaries(t, f.svc.Mounts().Input)
	assert.NotNil(t, f.logs.find(t, MsgUploaded))
}

func TestUploadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		ct     string
		body   io.Reader
		max    int64
		status int
		id     string
		level  string
	}{
		{"no content type", "", strings.NewReader("x"), 0, 400, MsgNoContentType, "debug"},
		{"gif", "image/gif", strings.NewReader("x"), 0, 400, MsgNoContentType, "debug"},
		{"malformed content type", "image/jpeg;;=", strings.NewReader("x"), 0, 400, MsgNoContentType, "debug"},
		{"body fails", "image/png", io.MultiReader(strings.NewReader("abc"), errReader{}), 0, 503, MsgBodyRequest, "error"},
		{"too large", "image/png", strings.NewReader("12345"), 4, 413, MsgBodyTooLarge, "debug"},
		{"empty", "image/png", strings.NewReader(""), 0, 400, MsgEmptyBody, "debug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, func(c *Config) { c.MaxUploadBytes = tc.max })
			res, herr := f.svc.Upload(t.Context(), tc.ct, tc.body)
			require.NotNil(t, herr)
			assert.Nil(t, res)
			assert.Equal(t, tc.status, herr.Status)
			if tc.status != http.StatusRequestEntityTooLarge && tc.id != MsgEmptyBody {
				assert.Equal(t, tc.id, herr.Code)
			}
			line := f.logs.find(t, tc.id)
			require.NotNil(t, line, "log line %s", tc.id)
			assert.Equal(t, tc.level, line["level"])
			assert.EqualValues(t, tc.status, line["status"])
			assertNoFiles(t, f.svc.Mounts().Input)
		})
	}
}

func TestUploadTemporaryFileCreationFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	in := f.svc.Mounts().Input
	require.NoError(t, os.Remove(in))
	require.NoError(t, os.WriteFile(in, nil, 0o644)) // input/ is now a file
	_, herr := f.svc.Upload(t.Context(), "image/jpeg", strings.NewReader("x"))
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgTemporaryFileCreate, herr.Code)
	line := f.logs.find(t, MsgTemporaryFileCreate)
	require.NotNil(t, line)
	assert.Equal(t, "error", line["level"])
}

func TestUploadCancelledContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx, cancel := contextWithCancel(t)
	cancel()
	_, herr := f.svc.Upload(ctx, "image/jpeg", strings.NewReader("x"))
	require.NotNil(t, herr)
	assert.Equal(t, MsgBodyRequest, herr.Code)
	assertNoFiles(t, f.svc.Mounts().Input)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func assertNoTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary left: %s", e.Name())
	}
}

func assertNoFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestUploadAfterClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.svc.Close()
	_, herr := f.svc.Upload(t.Context(), "image/jpeg", strings.NewReader("x"))
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assertNoFiles(t, f.svc.Mounts().Input)
}

func TestUploadRenameFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.svc.rename = func(string, string) error { return errors.New("no space left on device") }
	_, herr := f.svc.Upload(t.Context(), "image/jpeg", strings.NewReader("x"))
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgTemporaryFileWrite, herr.Code)
	line := f.logs.find(t, MsgTemporaryFileWrite)
	require.NotNil(t, line)
	assert.Equal(t, "error", line["level"])
	assertNoFiles(t, f.svc.Mounts().Input)
}
