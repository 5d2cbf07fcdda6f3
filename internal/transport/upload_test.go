package transport

import (
	"context"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

// largeUpload is the size of the streaming tests' uploads: 1 GiB with the
// build tag heavy (about 0.3 s on loopback), else 64 MiB, which still
// dwarfs the socket buffers and is eight times the heap growth and the
// allocation the tests allow: a body that is buffered fails them all the
// same.
func largeUpload() int64 {
	if heavyTests {
		return 1 << 30
	}
	return 64 << 20
}

// TestLargeUploadStreams uploads largeUpload bytes through ReaderAtBody and
// checks that the server got every byte in order with an exact
// Content-Length, while the heap never grows by more than 8 MiB (sampled
// peak of HeapAlloc) and less than 8 MiB is allocated in all (TotalAlloc,
// which does not depend on GC timing): the body is streamed, never
// buffered.
func TestLargeUploadStreams(t *testing.T) {
	// Not parallel: it measures the heap.
	src := streamtest.Pattern{Size: largeUpload()}
	want := crc32.NewIEEE()
	n, err := io.Copy(want, io.NewSectionReader(src, 0, src.Size))
	require.NoError(t, err)
	require.Equal(t, src.Size, n)

	type upload struct {
		contentLength, n int64
		sum              uint32
	}
	uploads := make(chan upload, 2)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		h := crc32.NewIEEE()
		n, _ := io.Copy(h, r.Body)
		uploads <- upload{r.ContentLength, n, h.Sum32()}
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	ctx := context.Background()

	// Warm up the connection pool and the code paths so their one-time
	// allocations are not counted as growth.
	resp, err := c.DoExternal(ctx, http.MethodPut, srv.URL+"/warm", nil, ReaderAtBody(streamtest.Pattern{Size: 1 << 20}, 1<<20, "video/mp4"))
	require.NoError(t, err)
	resp.Body.Close()
	<-uploads

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sampler := streamtest.Start()
	start := time.Now()

	resp, err = c.DoExternal(ctx, http.MethodPut, srv.URL+"/upload?X-Amz-Signature=abc123abc123", nil,
		ReaderAtBody(src, src.Size, "video/mp4"))

	elapsed := time.Since(start)
	growth := sampler.Stop()
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	resp.Body.Close()

	got := <-uploads
	assert.Equal(t, src.Size, got.contentLength, "exact Content-Length")
	assert.Equal(t, src.Size, got.n, "every byte arrived")
	assert.Equal(t, want.Sum32(), got.sum, "in order")

	t.Logf("uploaded %d MiB in %v (%.0f MiB/s); peak heap growth %.2f MiB; total allocated during upload %.2f MiB",
		src.Size>>20, elapsed.Round(time.Millisecond), float64(src.Size>>20)/elapsed.Seconds(),
		float64(growth)/(1<<20), mib(after.TotalAlloc-before.TotalAlloc))
	assert.Less(t, growth, int64(8<<20), "heap grew by %.2f MiB during the upload", float64(growth)/(1<<20))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "allocated during the upload")
}

// BenchmarkUpload measures streaming throughput of a 64 MiB ReaderAtBody
// upload to a loopback server.
func BenchmarkUpload(b *testing.B) {
	const size = 64 << 20
	srv := httptestServer(b)
	c, err := New(Options{BaseURL: srv})
	require.NoError(b, err)
	defer c.CloseIdleConnections()
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp, err := c.DoExternal(context.Background(), http.MethodPut, srv+"/u", nil, ReaderAtBody(streamtest.Pattern{Size: size}, size, ""))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkDoJSON measures the per-call overhead of a small JSON API call.
func BenchmarkDoJSON(b *testing.B) {
	srv := httptestServer(b)
	c, err := New(Options{BaseURL: srv, AuthHeader: "X-API-KEY", AuthValue: "k"})
	require.NoError(b, err)
	defer c.CloseIdleConnections()
	b.ReportAllocs()
	var out map[string]any
	for i := 0; i < b.N; i++ {
		if err := c.DoJSON(context.Background(), &Request{Path: "status/1", Query: url.Values{"noRedirect": {"true"}}}, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// httptestServer starts a server that drains bodies and answers {"ok":true}.
func httptestServer(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
