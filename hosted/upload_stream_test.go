package hosted_test

import (
	"context"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestUploadStreams uploads a generated file to a pre-signed URL and
// checks it arrives whole with an exact Content-Length while the client's
// heap stays flat: nothing buffers the body. The file is 1 GiB with the
// build tag heavy (.ci/run's heavy step), else 64 MiB: far more than the
// socket buffers, and eight times the heap growth allowed.
func TestUploadStreams(t *testing.T) {
	// Not parallel: it measures the heap.
	size := int64(64 << 20)
	if heavyTests {
		size = 1 << 30
	}
	var received atomic.Int64
	var contentLength atomic.Int64
	var receivedCRC atomic.Uint32
	want := crc32.NewIEEE()
	_, err := io.Copy(want, io.NewSectionReader(streamtest.Pattern{Size: size}, 0, size))
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("X-API-KEY"))
		contentLength.Store(r.ContentLength)
		h := crc32.NewIEEE()
		n, _ := io.Copy(h, r.Body)
		received.Store(n)
		receivedCRC.Store(h.Sum32())
	}))
	defer srv.Close()

	c, err := hosted.NewClient("sk-test-upload-key", pfc.WithBaseURL(srv.URL+"/v2"))
	require.NoError(t, err)

	// Sample the heap while the upload runs; the peak is what matters.
	sampler := streamtest.Start()
	err = c.UploadTo(context.Background(), &hosted.UploadTicket{UploadURL: srv.URL + "/store/big?sig=x"}, streamtest.Pattern{Size: size}, size, "video/mp4")
	growth := sampler.Stop()
	require.NoError(t, err)

	assert.Equal(t, size, contentLength.Load())
	assert.Equal(t, size, received.Load())
	assert.Equal(t, want.Sum32(), receivedCRC.Load(), "content arrives intact")
	t.Logf("heap growth during a %d MiB upload: %.2f MiB", size>>20, float64(growth)/(1<<20))
	assert.Less(t, growth, int64(8<<20), "the upload must not buffer the body")
}
