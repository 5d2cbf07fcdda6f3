package blobstore_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestSignerRoundTripAndTampering(t *testing.T) {
	s, err := blobstore.NewSigner([]byte("k"))
	require.NoError(t, err)
	exp := t0.Add(time.Hour)
	q, err := url.ParseQuery(s.Query("PUT", "/storage/upload/abc", exp))
	require.NoError(t, err)

	require.NoError(t, s.Verify("PUT", "/storage/upload/abc", q, t0))
	require.NoError(t, s.Verify("PUT", "/storage/upload/abc", q, exp), "valid through the expiry second")

	assert.ErrorIs(t, s.Verify("PUT", "/storage/upload/abc", q, exp.Add(time.Second)), blobstore.ErrExpired)
	assert.ErrorIs(t, s.Verify("GET", "/storage/upload/abc", q, t0), blobstore.ErrBadSignature)
	assert.ErrorIs(t, s.Verify("PUT", "/storage/upload/abd", q, t0), blobstore.ErrBadSignature)

	later := url.Values{}
	later.Set("expires", "99999999999")
	later.Set("signature", q.Get("signature"))
	assert.ErrorIs(t, s.Verify("PUT", "/storage/upload/abc", later, exp.Add(time.Hour)), blobstore.ErrBadSignature,
		"an edited expiry is a bad signature, not an expired URL")

	for name, bad := range map[string]url.Values{
		"none":         {},
		"no signature": {"expires": q["expires"]},
		"bad expires":  {"expires": {"x"}, "signature": q["signature"]},
		"bad base64":   {"expires": q["expires"], "signature": {"!!"}},
		"repeated":     {"expires": q["expires"], "signature": {q.Get("signature"), q.Get("signature")}},
		"other bits":   {"expires": q["expires"], "signature": {strings.Repeat("A", 43)}},
	} {
		assert.ErrorIs(t, s.Verify("PUT", "/storage/upload/abc", bad, t0), blobstore.ErrBadSignature, name)
	}

	other, err := blobstore.NewSigner(nil)
	require.NoError(t, err)
	assert.ErrorIs(t, other.Verify("PUT", "/storage/upload/abc", q, t0), blobstore.ErrBadSignature)
}

func TestStoreReceiveCommit(t *testing.T) {
	dir := t.TempDir()
	st, err := blobstore.Open(dir)
	require.NoError(t, err)
	assert.Equal(t, dir, st.Dir())

	body := bytes.Repeat([]byte("x"), 1000)
	tmp, err := st.Receive(bytes.NewReader(body), 1000)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), tmp.Size)
	assert.Equal(t, sha256.Sum256(body), tmp.SHA256)

	p, err := st.Commit(tmp.Path, "blob1")
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, body, got)

	l, err := st.Link(p, "blob2")
	require.NoError(t, err)
	got, err = os.ReadFile(l)
	require.NoError(t, err)
	assert.Equal(t, body, got)

	require.NoError(t, st.Remove("blob1"))
	require.NoError(t, st.Remove("blob1"), "removing a missing blob is fine")
	_, err = os.Stat(p)
	assert.ErrorIs(t, err, os.ErrNotExist)

	for _, bad := range []string{"", ".", "..", ".tmp", "a/b", "../x"} {
		_, err := st.Path(bad)
		assert.ErrorIs(t, err, blobstore.ErrInvalidName, bad)
	}
	assertNoTemps(t, dir)
}

func TestStoreReceiveTooLargeKeepsNothing(t *testing.T) {
	dir := t.TempDir()
	st, err := blobstore.Open(dir)
	require.NoError(t, err)
	_, err = st.Receive(io.LimitReader(zeros{}, 1001), 1000)
	require.ErrorIs(t, err, blobstore.ErrTooLarge)
	assertNoTemps(t, dir)

	tmp, err := st.Receive(io.LimitReader(zeros{}, 5000), -1)
	require.NoError(t, err)
	assert.Equal(t, int64(5000), tmp.Size)
	tmp.Discard()
	assertNoTemps(t, dir)
}

func TestStoreReceiveReadErrorKeepsNothing(t *testing.T) {
	dir := t.TempDir()
	st, err := blobstore.Open(dir)
	require.NoError(t, err)
	boom := errors.New("connection reset")
	_, err = st.Receive(io.MultiReader(strings.NewReader("abc"), errReader{boom}), 1000)
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, err, blobstore.ErrRead, "the client's fault, not the store's")
	assertNoTemps(t, dir)
}

func TestStoreReceiveStoreFailureIsNotARead(t *testing.T) {
	dir := t.TempDir()
	st, err := blobstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	_, err = st.Receive(strings.NewReader("abc"), 1000)
	require.Error(t, err)
	assert.NotErrorIs(t, err, blobstore.ErrRead)
	assert.NotErrorIs(t, err, blobstore.ErrTooLarge)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".tmp"))
	require.NoError(t, err)
	assert.Empty(t, entries)
}
