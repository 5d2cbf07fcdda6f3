package transport

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBytesBodyIsInMemory: every attempt of a BytesBody reads a fresh
// *bytes.Reader over the whole slice, a type net/http knows to be in
// memory (it then sends headers and body in one write).
func TestBytesBodyIsInMemory(t *testing.T) {
	t.Parallel()
	b := []byte("hello, world")
	open, size := BytesBody(b, "text/plain").readerFunc()
	assert.Equal(t, int64(len(b)), size)
	for range 2 {
		r, err := open()
		require.NoError(t, err)
		require.IsType(t, &bytes.Reader{}, r)
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
}

// TestSmallReaderAtBodyIsInMemory: a ReaderAtBody of at most
// smallReaderAtBody bytes is read into a *bytes.Reader on every attempt
// (net/http then writes headers and body at once); a larger one streams
// through a sourceReader; a small source that ends early streams too, so
// that its failure is the same as for a large one.
func TestSmallReaderAtBodyIsInMemory(t *testing.T) {
	t.Parallel()
	small := bytes.Repeat([]byte("ab"), smallReaderAtBody/2)
	open, size := ReaderAtBody(bytes.NewReader(small), int64(len(small)), "image/jpeg").readerFunc()
	assert.Equal(t, int64(len(small)), size)
	for range 2 {
		r, err := open()
		require.NoError(t, err)
		require.IsType(t, &bytes.Reader{}, r)
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, small, got)
	}

	large := append(small, 'c')
	open, _ = ReaderAtBody(bytes.NewReader(large), int64(len(large)), "image/jpeg").readerFunc()
	r, err := open()
	require.NoError(t, err)
	require.IsType(t, &sourceReader{}, r)

	open, _ = ReaderAtBody(bytes.NewReader(small[:10]), 20, "image/jpeg").readerFunc()
	r, err = open()
	require.NoError(t, err)
	require.IsType(t, &sourceReader{}, r)
	_, err = io.ReadAll(r)
	require.ErrorContains(t, err, "source ended after 10 of 20 bytes")
}
