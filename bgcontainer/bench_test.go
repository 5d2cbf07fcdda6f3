package bgcontainer_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// BenchmarkSubmitImage1GiB sends a generated 1 GiB JPEG-looking stream
// with SubmitImage (a streamed multipart POST) to an in-process server
// that discards it, and reports the peak heap growth (client and server
// in one process). Goal: at most 8 MiB.
//
//	go test ./bgcontainer -run '^$' -bench BenchmarkSubmitImage1GiB -benchtime 1x
func BenchmarkSubmitImage1GiB(b *testing.B) {
	const size = 1 << 30
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"processing","process_id":"0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10","mode":"portrait","preprocessing_enabled":"false","message":"Image processing started"}`)
	}))
	defer srv.Close()
	c, err := bgcontainer.NewClient("bench-licence-key", pfc.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseIdleConnections()
	b.SetBytes(size)
	var worst int64
	for b.Loop() {
		growth := streamtest.PeakGrowth(func() {
			if _, err := c.SubmitImage(context.Background(), streamtest.JPEG{Size: size}, size, nil); err != nil {
				b.Error(err)
			}
		})
		worst = max(worst, growth)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}

// BenchmarkBGMockCheckImage measures the background-removal mock's GET
// /CheckImage/{id} (a completed job) with plain net/http clients, 8 in
// flight over kept-alive connections, client and server on the same
// cores.
//
//	go test ./bgcontainer -run '^$' -bench BenchmarkBGMockCheckImage -benchtime 20000x
func BenchmarkBGMockCheckImage(b *testing.B) {
	ts := bgmock.Start(b, &bgmock.Options{Activated: true})
	in := filepath.Join(b.TempDir(), "a.jpg")
	if err := os.WriteFile(in, bulkJPEG(b, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	res, err := ts.Client.RemoveBackgroundFile(context.Background(), in, in+".png", nil, &pfc.FlowOptions{KeepJob: true})
	if err != nil {
		b.Fatal(err)
	}
	tr := ts.Server.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	u := ts.URL + "/CheckImage/" + res.Job.ProcessID
	b.SetParallelism(4)
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := hc.Get(u)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("CheckImage: %s", resp.Status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkBGRemoveDir removes the backgrounds of 1,000 small images (64×48)
// with RemoveDir, 16 in flight, against the mock (its CPU matting engine
// is the processing: there is no instant mode), and reports images per
// second.
//
//	go test ./bgcontainer -run '^$' -bench BenchmarkBGRemoveDir -benchtime 1x
func BenchmarkBGRemoveDir(b *testing.B) {
	const n = 1000
	in := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("img%04d.jpg", i)), bulkJPEG(b, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ts := bgmock.Start(b, &bgmock.Options{Activated: true},
		bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	var images int
	var spent time.Duration
	i := 0
	for b.Loop() {
		out := filepath.Join(b.TempDir(), fmt.Sprint(i))
		i++
		t0 := time.Now()
		rep, err := ts.Client.RemoveDir(context.Background(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{Concurrency: 16})
		spent += time.Since(t0)
		if err != nil || rep.Done != n {
			b.Fatalf("done %d of %d: %v %v", rep.Done, n, err, rep.Failures)
		}
		images += rep.Done
	}
	b.ReportMetric(float64(images)/spent.Seconds(), "images/s")
}
