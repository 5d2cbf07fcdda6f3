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
