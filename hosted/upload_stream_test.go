package hosted

import (
	"context"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternBlock repeats through the generated stream; its odd length keeps
// the stream from aligning with the transport's buffers.
var patternBlock = func() []byte {
	b := make([]byte, 64<<10+13)
	for i := range b {
		b[i] = byte(i*31 + 7)
	}
	return b
}()

// patternReaderAt is a generated, allocation-free stream of size bytes.
type patternReaderAt struct{ size int64 }

func (p patternReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), p.size-off))
	for done := 0; done < n; {
		pos := (off + int64(done)) % int64(len(patternBlock))
		done += copy(b[done:n], patternBlock[pos:])
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// TestUploadOneGiBStreams uploads a generated 1 GiB file to a pre-signed
// URL and checks it arrives whole with an exact Content-Length while the
// client's heap stays flat: nothing buffers the body.
func TestUploadOneGiBStreams(t *testing.T) {
	// Not parallel: it measures the heap.
	const size = 1 << 30
	var received atomic.Int64
	var contentLength atomic.Int64
	var receivedCRC atomic.Uint32
	want := crc32.NewIEEE()
	_, err := io.Copy(want, io.NewSectionReader(patternReaderAt{size}, 0, size))
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

	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v2"))
	require.NoError(t, err)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// Sample the heap while the upload runs; the peak is what matters.
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			runtime.Gosched()
		}
	}()
	err = c.UploadTo(context.Background(), &UploadTicket{UploadURL: srv.URL + "/store/big?sig=x"}, patternReaderAt{size}, size, "video/mp4")
	close(stop)
	<-sampled
	require.NoError(t, err)

	assert.Equal(t, int64(size), contentLength.Load())
	assert.Equal(t, int64(size), received.Load())
	assert.Equal(t, want.Sum32(), receivedCRC.Load(), "content arrives intact")
	growth := int64(peak.Load()) - int64(before.HeapAlloc)
	t.Logf("heap growth during a 1 GiB upload: %.2f MiB", float64(growth)/(1<<20))
	assert.Less(t, growth, int64(8<<20), "the upload must not buffer the body")
}
