package pfcotel_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/pfcsdk/pfc-go/contrib/pfcotel"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// benchObserver is the adapter over SDK providers that sample every span
// and export it to a no-op exporter, and aggregate metrics that a manual
// reader never collects.
func benchObserver(b *testing.B) *pfcotel.Observer {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := pfcotel.New(pfcotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	if err != nil {
		b.Fatal(err)
	}
	return obs
}

// BenchmarkObserverOverhead runs the hosted flow (Correct of one small
// JPEG against the in-process mock with instant processing) with and
// without the adapter, paired: each iteration runs both, in alternating
// order, so that both see the same load. otel/none is the ratio of the
// sums, median-otel/none that of the medians. bulk-item-paired does the
// same with CorrectAll over 8 files (one at a time) per run; allocs/...
// report one flow's allocations with and without the adapter.
//
//	cd contrib/pfcotel && go test -run '^$' -bench BenchmarkObserverOverhead -benchmem
func BenchmarkObserverOverhead(b *testing.B) {
	srv := hostedmock.Start(b, &hostedmock.Options{Processor: instant})
	poll := hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Microsecond, MaxDelay: time.Microsecond})
	transport := pfc.WithHTTPClient(srv.Server.Client())
	none, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL), transport, poll)
	if err != nil {
		b.Fatal(err)
	}
	withOtel, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL), transport, poll, pfc.WithObserver(benchObserver(b)))
	if err != nil {
		b.Fatal(err)
	}
	img := tinyJPEG(b, 9)
	opts := hosted.NewCorrection().WithCache(false)
	ctx := context.Background()
	flow := func(c *hosted.Client) time.Duration {
		t0 := time.Now()
		if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), opts, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// pair runs run on none and withOtel in turns (which goes first
	// alternates) and reports each one's mean time per unit (per of them
	// a run) and the ratios of their sums and of their medians.
	pair := func(b *testing.B, run func(*hosted.Client) time.Duration, per int, unit string) {
		var runs [2][]time.Duration
		var sums [2]time.Duration
		i := 0
		for b.Loop() {
			for k := range 2 {
				which := (i + k) % 2
				d := run([]*hosted.Client{none, withOtel}[which])
				sums[which] += d
				runs[which] = append(runs[which], d)
			}
			i++
		}
		n := float64(b.N * per)
		b.ReportMetric(float64(sums[0].Nanoseconds())/n, "none-ns/"+unit)
		b.ReportMetric(float64(sums[1].Nanoseconds())/n, "otel-ns/"+unit)
		b.ReportMetric(float64(sums[1])/float64(sums[0]), "otel/none")
		b.ReportMetric(float64(median(runs[1]))/float64(median(runs[0])), "median-otel/none")
	}
	b.Run("flow-paired", func(b *testing.B) { pair(b, flow, 1, "op") })
	in := b.TempDir()
	var items []pfc.BulkItem
	for i := range 8 {
		src := filepath.Join(in, fmt.Sprintf("%d.jpg", i))
		if err := os.WriteFile(src, tinyJPEG(b, i), 0o644); err != nil {
			b.Fatal(err)
		}
		items = append(items, pfc.BulkItem{SrcPath: src, DstPath: filepath.Join(in, fmt.Sprintf("out%d.jpg", i))})
	}
	bulkRun := func(c *hosted.Client) time.Duration {
		t0 := time.Now()
		var seq iter.Seq[pfc.BulkItem] = slices.Values(items)
		rep, err := c.CorrectAll(ctx, seq, opts, &pfc.BulkOptions[*hosted.Job]{Concurrency: 1})
		if err != nil || rep.Done != len(items) {
			b.Fatal(err, rep)
		}
		return time.Since(t0)
	}
	b.Run("bulk-item-paired", func(b *testing.B) { pair(b, bulkRun, len(items), "item") })
	for _, tc := range []struct {
		name string
		c    *hosted.Client
	}{{"allocs/none", none}, {"allocs/otel", withOtel}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				flow(tc.c)
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
