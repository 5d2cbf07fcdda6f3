package bgcontainer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// oneAtATime is a memory budget that holds one small image's background
// removal (about 68 MB: the engine's fixed 64 MiB) but not two, so each
// replica processes one image at a time.
const oneAtATime = 96_000_000

// BenchmarkReplicas removes the backgrounds of 60 images over 1 and over
// 3 replicas of the mock, each processing one image at a time for 300ms
// (the delay holds its place in the memory budget, as a slower engine
// would), and over 3 with one killed when half the images are done. The
// goal: 3 replicas at least 2.7 times faster than 1, and every image done
// despite the kill.
func BenchmarkReplicas(b *testing.B) {
	const n = 60
	for _, c := range []struct {
		name     string
		replicas int
		kill     bool
	}{{"replicas=1", 1, false}, {"replicas=3", 3, false}, {"replicas=3/kill-one-at-midpoint", 3, true}} {
		b.Run(c.name, func(b *testing.B) {
			in := b.TempDir()
			for i := range n {
				writeBench(b, in, i)
			}
			for b.Loop() {
				b.StopTimer()
				fleet := bgmock.StartFleet(b, c.replicas, &bgmock.Options{
					Activated: true, ProcessingDelay: 300 * time.Millisecond, MemoryBudget: oneAtATime,
				})
				var urls []string
				for _, s := range fleet {
					urls = append(urls, s.URL)
				}
				cl, err := bgcontainer.NewClient(fleet[0].LicenseKey, pfc.WithReplicas(urls...),
					bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 30 * time.Millisecond}),
					pfc.WithRetries(4, 5*time.Millisecond, 20*time.Millisecond))
				if err != nil {
					b.Fatal(err)
				}
				var (
					once sync.Once
					done atomic.Int32
				)
				b.StartTimer()
				rep, err := cl.RemoveDir(context.Background(), in, b.TempDir(), nil, &pfc.BulkOptions[*bgcontainer.Result]{
					Concurrency: 6,
					OnResult: func(pfc.BulkResult[*bgcontainer.Result]) {
						if c.kill && done.Add(1) == n/2 {
							once.Do(func() { kill(fleet[2]) })
						}
					},
				})
				b.StopTimer()
				if err != nil || rep.Done != n {
					b.Fatalf("done %d of %d: %v %v", rep.Done, n, err, rep.Failures)
				}
				cl.CloseIdleConnections()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

func writeBench(b *testing.B, dir string, i int) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%03d.jpg", i)), bulkJPEG(b, i), 0o644); err != nil {
		b.Fatal(err)
	}
}
