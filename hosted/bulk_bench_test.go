package hosted_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// benchImages writes n distinct small JPEGs (48×40, about 1 KB) into a
// new directory.
func benchImages(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%04d.jpg", i)), smallJPEG(b, i, 48, 40), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// benchBulkClient starts the mock with instant processing and returns a
// client polling every 1 to 10 ms, with its request counter.
func benchBulkClient(b *testing.B) (*hosted.Client, *countingTransport) {
	b.Helper()
	srv := hostedmock.Start(b, &hostedmock.Options{Processor: instantProcessor})
	tr := srv.Server.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	ct := &countingTransport{next: tr}
	c, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL), pfc.WithHTTPClient(&http.Client{Transport: ct}),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(tr.CloseIdleConnections)
	return c, ct
}

// BenchmarkCorrectDir1000 corrects 1,000 small images with CorrectDir,
// 16 in flight, against the in-process mock with instant processing
// (client polling 1–10 ms, manifest fsynced per record), into a fresh
// output folder per iteration. It reports images per second.
//
//	go test ./hosted -run '^$' -bench BenchmarkCorrectDir1000 -benchtime 1x
func BenchmarkCorrectDir1000(b *testing.B) {
	const n = 1000
	in := benchImages(b, n)
	c, _ := benchBulkClient(b)
	var images int
	var spent time.Duration
	i := 0
	for b.Loop() {
		out := filepath.Join(b.TempDir(), fmt.Sprint(i))
		i++
		t0 := time.Now()
		rep, err := c.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions[*hosted.Job]{Concurrency: 16})
		spent += time.Since(t0)
		if err != nil || rep.Done != n {
			b.Fatalf("done %d of %d: %v %v", rep.Done, n, err, rep.Failures)
		}
		images += rep.Done
	}
	b.ReportMetric(float64(images)/spent.Seconds(), "images/s")
}

// BenchmarkCorrectDir1000Resume runs the same 1,000 images, cancels the
// run once a random number of them have finished, and resumes it. It
// fails if an image recorded done is sent again or an output is missing,
// and reports images per second over both runs and where the cut fell.
//
//	go test ./hosted -run '^$' -bench BenchmarkCorrectDir1000Resume -benchtime 1x
func BenchmarkCorrectDir1000Resume(b *testing.B) {
	const n = 1000
	in := benchImages(b, n)
	c, ct := benchBulkClient(b)
	var spent time.Duration
	var cuts, images int
	i := 0
	for b.Loop() {
		out := filepath.Join(b.TempDir(), fmt.Sprint(i))
		i++
		cut := 1 + rand.IntN(n-20)
		ctx, cancel := context.WithCancel(context.Background())
		var finished atomic.Int32
		t0 := time.Now()
		rep1, err := c.CorrectDir(ctx, in, out, nil, &pfc.BulkOptions[*hosted.Job]{
			Concurrency: 16,
			OnResult: func(pfc.BulkResult[*hosted.Job]) {
				if finished.Add(1) == int32(cut) {
					cancel()
				}
			},
		})
		cancel()
		if err == nil || rep1.Done < cut || rep1.Failed != 0 {
			b.Fatalf("first run: %v, %d done, cut %d", err, rep1.Done, cut)
		}
		uploads := ct.count("upload")
		rep2, err := c.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions[*hosted.Job]{Concurrency: 16})
		spent += time.Since(t0)
		if err != nil || rep2.Skipped != rep1.Done || rep2.Done != n-rep1.Done {
			b.Fatalf("resume: %v: skipped %d (want %d), done %d (want %d)", err, rep2.Skipped, rep1.Done, rep2.Done, n-rep1.Done)
		}
		if sent := ct.count("upload") - uploads; sent != n-rep1.Done {
			b.Fatalf("resume sent %d images, want %d", sent, n-rep1.Done)
		}
		ents, err := os.ReadDir(out)
		if err != nil || len(ents) != n+1 {
			b.Fatalf("%d entries in the output folder, want %d outputs and the manifest (%v)", len(ents), n, err)
		}
		cuts += rep1.Done
		images += n
	}
	b.ReportMetric(float64(images)/spent.Seconds(), "images/s")
	b.ReportMetric(float64(cuts)/float64(b.N), "done-before-cut")
}
