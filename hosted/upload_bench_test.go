package hosted

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// peakHeapGrowth runs fn and returns the largest growth of the live heap
// over its value before fn, sampled every millisecond (and once at the
// end).
func peakHeapGrowth(fn func()) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	peak.Store(base)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	<-sampled
	return int64(peak.Load()) - int64(base)
}

// BenchmarkUpload1GiB uploads a generated 1 GiB file through Upload
// (upload ticket, then the pre-signed PUT) to an in-process server that
// discards it, and reports the peak heap growth (client and server in the
// same process) and the throughput. Goal: at most 8 MiB.
//
//	go test ./hosted -run '^$' -bench BenchmarkUpload1GiB -benchtime 1x
func BenchmarkUpload1GiB(b *testing.B) {
	const size = 1 << 30
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"fileKey":"k1","uploadUrl":"`+srvURL+`/store/k1?sig=x"}`)
		case http.MethodPut:
			_, _ = io.Copy(io.Discard, r.Body)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v2"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	var worst int64
	for b.Loop() {
		growth := peakHeapGrowth(func() {
			if _, err := c.Upload(context.Background(), FileTypeVideo, patternReaderAt{size}, size, "video/mp4"); err != nil {
				b.Error(err)
			}
		})
		worst = max(worst, growth)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}
