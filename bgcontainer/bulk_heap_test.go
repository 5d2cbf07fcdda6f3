package bgcontainer_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// heapMeter records the largest heap seen at its samples.
type heapMeter struct {
	mu   sync.Mutex
	peak uint64
}

func (h *heapMeter) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.peak = max(h.peak, ms.HeapAlloc)
	h.mu.Unlock()
}

// genFS is an fs.FS of images made on the fly, none of them ever whole
// in memory: "<i>.png" is a tiny PNG padded to size bytes. Its files are
// read in sequence only (no io.ReaderAt), and every megabyte read
// samples the heap.
type genFS struct {
	size  int64
	png   []byte
	meter *heapMeter
}

func (g genFS) Open(name string) (fs.File, error) {
	return &genFile{g: g, name: name}, nil
}

type genFile struct {
	g    genFS
	name string
	off  int64
}

func (f *genFile) Stat() (fs.FileInfo, error) { return genInfo{f.name, f.g.size}, nil }
func (f *genFile) Close() error               { return nil }
func (f *genFile) Read(p []byte) (int, error) {
	if f.off >= f.g.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), f.g.size-f.off)]
	for i := range p {
		if o := f.off + int64(i); o < int64(len(f.g.png)) {
			p[i] = f.g.png[o]
		} else {
			p[i] = byte(o * 31)
		}
	}
	if f.off>>20 != (f.off+int64(len(p)))>>20 {
		f.g.meter.sample()
	}
	f.off += int64(len(p))
	return len(p), nil
}

type genInfo struct {
	name string
	size int64
}

func (i genInfo) Name() string       { return i.name }
func (i genInfo) Size() int64        { return i.size }
func (i genInfo) Mode() fs.FileMode  { return 0o444 }
func (i genInfo) ModTime() time.Time { return time.Time{} }
func (i genInfo) IsDir() bool        { return false }
func (i genInfo) Sys() any           { return nil }

// discardSink publishes nothing and keeps nothing.
type discardSink struct{}

func (discardSink) Put(_ context.Context, _ string, write func(io.Writer) error) error {
	return write(io.Discard)
}
func (discardSink) Exists(context.Context, string) (bool, error) { return false, nil }

// shrinkUploads serves mock with every uploaded file replaced, as it
// streams in, by tiny: the mock then never holds a big upload.
func shrinkUploads(mock http.Handler, tiny []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/SubmitImage" {
			mock.ServeHTTP(w, r)
			return
		}
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			pw, _ := mw.CreatePart(part.Header)
			if part.FileName() != "" {
				_, _ = io.Copy(io.Discard, part)
				_, _ = pw.Write(tiny)
			} else {
				_, _ = io.Copy(pw, part)
			}
		}
		_ = mw.Close()
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(&body)
		r2.ContentLength = int64(body.Len())
		r2.Header.Set("Content-Type", mw.FormDataContentType())
		r2.Header.Set("Content-Length", strconv.Itoa(body.Len()))
		mock.ServeHTTP(w, r2)
	})
}

// heapRun removes the backgrounds of n images of size bytes from a
// genFS into a discarding sink and returns the growth of the heap's
// peak over the heap at the start.
func heapRun(tb testing.TB, n int, size int64, concurrency int) uint64 {
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 16, 16))))
	mock, err := bgmock.New(bgmock.Options{Activated: true})
	require.NoError(tb, err)
	srv := httptest.NewServer(shrinkUploads(mock, buf.Bytes()))
	tb.Cleanup(func() { srv.Close(); mock.Close() })
	c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(srv.URL))
	require.NoError(tb, err)
	defer c.CloseIdleConnections()
	meter := &heapMeter{}
	src := genFS{size: size, png: buf.Bytes(), meter: meter}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	rep, err := c.RemoveAll(context.Background(), func(yield func(pfc.BulkItem) bool) {
		for i := range n {
			name := strconv.Itoa(i) + ".png"
			if !yield(pfc.BulkItem{SrcPath: name, DstPath: "out/" + name}) {
				return
			}
		}
	}, nil, &pfc.BulkOptions[*bgcontainer.Result]{Source: src, Sink: discardSink{}, Concurrency: concurrency})
	require.NoError(tb, err)
	require.Equal(tb, n, rep.Done, "%+v", rep.Failures)
	meter.sample()
	if meter.peak < base {
		return 0
	}
	return meter.peak - base
}

// TestBulkFSHeap: 20 MB inputs from an fs.FS stream through the upload:
// the heap's peak grows by less than two inputs' size (a run holding
// one input whole would pass that with three in flight).
// It does not run in parallel: other tests would move the heap.
func TestBulkFSHeap(t *testing.T) {
	if raceEnabled && !heavyTests {
		// 120 MB made and read a byte at a time: about 6 s under the race
		// detector, which measures no heap. The same bulk goroutines over an
		// fs.FS run under it in TestBulkRemoveDirFSToSink and TestBulkRemoveAll.
		t.Skip("a heap bound, not goroutines: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	const size = 20 << 20
	growth := heapRun(t, 6, size, 3)
	t.Logf("peak heap growth: %.1f MB", float64(growth)/(1<<20))
	require.Less(t, growth, uint64(2*size))
}

// BenchmarkBulkFSHeap is the 100-image run of 20 MB inputs; it reports
// the peak heap growth in MB.
func BenchmarkBulkFSHeap(b *testing.B) {
	for b.Loop() {
		growth := heapRun(b, 100, 20<<20, 4)
		b.ReportMetric(float64(growth)/(1<<20), "peak-heap-MB")
		b.ReportMetric(0, "ns/op")
	}
}
