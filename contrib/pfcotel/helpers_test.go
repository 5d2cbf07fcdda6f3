package pfcotel_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/pfcsdk/pfc-go/contrib/pfcotel"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

// telemetry is an Observer over an in-memory span recorder and a manual
// metric reader.
type telemetry struct {
	obs    *pfcotel.Observer
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newTelemetry(t testing.TB) *telemetry {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	obs, err := pfcotel.New(pfcotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	require.NoError(t, err)
	return &telemetry{obs: obs, spans: sr, reader: reader}
}

// metrics collects the metrics recorded so far, by name.
func (tm *telemetry) metrics(t testing.TB) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tm.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// instant makes mock jobs complete at once, the output the input.
var instant = hostedmock.ProcessorFunc(func(_ context.Context, src io.Reader, _ hostedmock.JobRequest, dst io.Writer) (*hostedmock.JobResult, error) {
	_, err := io.Copy(dst, src)
	return &hostedmock.JobResult{}, err
})

// tinyJPEG is a distinct 40×40 JPEG for seed (the mock's minimum side is
// 33 px).
func tinyJPEG(t testing.TB, seed int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for y := range 40 {
		for x := range 40 {
			img.Set(x, y, color.RGBA{R: uint8(seed), G: uint8(seed >> 8), B: uint8(x + y), A: 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}))
	return b.Bytes()
}
