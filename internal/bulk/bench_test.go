package bulk

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkRunOverhead measures the runner itself: 10,000 items whose
// work does nothing, 16 in flight, without a manifest and with one (a
// record appended and fsynced per item, group-committed). It reports
// items per second.
//
//	go test ./internal/bulk -run '^$' -bench BenchmarkRunOverhead -benchtime 3x
func BenchmarkRunOverhead(b *testing.B) {
	const n = 10000
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{ID: fmt.Sprint(i), Src: "in/" + fmt.Sprint(i), Dst: "out/" + fmt.Sprint(i)}
	}
	work := func(context.Context, Item) (int, error) { return 0, nil }
	for _, withManifest := range []bool{false, true} {
		b.Run(map[bool]string{false: "no-manifest", true: "manifest"}[withManifest], func(b *testing.B) {
			dir := b.TempDir()
			its := slices.Clone(items)
			for i := range its {
				its[i].Dst = filepath.Join(dir, its[i].Dst)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				o := Options[int]{Concurrency: 16}
				if withManifest {
					o.Manifest = filepath.Join(dir, fmt.Sprintf("m%d.jsonl", i))
				}
				i++
				rep, err := Run(context.Background(), slices.Values(its), work, o)
				if err != nil || rep.Done != n {
					b.Fatal(err, rep.Done)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
