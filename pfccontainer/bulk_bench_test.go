package pfccontainer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// BenchmarkContainerMockJobs measures corrections per second end to end
// against the unlicensed container mock (instant processing): Upload,
// Correct, Download through the SDK, 8 flows at once, client and mock in
// one process.
//
//	go test ./pfccontainer -run '^$' -bench BenchmarkContainerMockJobs -benchtime 2000x
func BenchmarkContainerMockJobs(b *testing.B) {
	ts := pfcmock.Start(b, &pfcmock.Options{Unlicensed: true, LogWriter: io.Discard})
	img := jpegOf(b, 48, 40, 7)
	c := ts.Client
	b.SetParallelism(4)
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
			if err == nil {
				var corr *pfccontainer.Correction
				if corr, err = c.GetCorrection(ctx, key, nil); err == nil {
					_, err = c.Download(ctx, corr, io.Discard)
				}
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}

// BenchmarkContainerCorrectDir1000 corrects 1,000 small images with
// CorrectDir, 16 in flight, against the unlicensed container mock, over
// HTTP and in direct file mode, into a fresh output folder per iteration,
// and reports images per second.
//
//	go test ./pfccontainer -run '^$' -bench BenchmarkContainerCorrectDir1000 -benchtime 1x
func BenchmarkContainerCorrectDir1000(b *testing.B) {
	const n = 1000
	in := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("img%04d.jpg", i)), jpegOf(b, 48, 40, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, direct := range []bool{false, true} {
		b.Run(map[bool]string{false: "http", true: "direct"}[direct], func(b *testing.B) {
			ts := pfcmock.Start(b, &pfcmock.Options{Unlicensed: true, LogWriter: io.Discard})
			var images int
			var spent time.Duration
			i := 0
			for b.Loop() {
				out := filepath.Join(b.TempDir(), fmt.Sprint(i))
				i++
				t0 := time.Now()
				var rep *pfc.BulkReport[*pfccontainer.Correction]
				var err error
				bo := &pfc.BulkOptions[*pfccontainer.Correction]{Concurrency: 16}
				if direct {
					rep, err = ts.Client.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir()).CorrectDir(context.Background(), in, out, nil, bo)
				} else {
					rep, err = ts.Client.CorrectDir(context.Background(), in, out, nil, bo)
				}
				spent += time.Since(t0)
				if err != nil || rep.Done != n {
					b.Fatalf("done %d of %d: %v %v", rep.Done, n, err, rep.Failures)
				}
				images += rep.Done
			}
			b.ReportMetric(float64(images)/spent.Seconds(), "images/s")
		})
	}
}
