// Command example corrects one photo against the hosted API's mock,
// embedded in the process, with a client that reports to an
// OpenTelemetry SDK tracer and meter provider whose exporters print to
// stdout: the flow's spans (the upload ticket, the upload, the start,
// each poll, the download), then the metrics, as JSON.
//
//	cd contrib/pfcotel && go run ./example
package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/pfcsdk/pfc-go/contrib/pfcotel"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run corrects a photo and writes the spans, metrics and request logs
// to w.
func run(ctx context.Context, w io.Writer) error {
	// The OpenTelemetry SDK: spans and metrics printed as JSON.
	spans, err := stdouttrace.New(stdouttrace.WithWriter(w), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(w), stdoutmetric.WithPrettyPrint())
	if err != nil {
		return err
	}
	reader := sdkmetric.NewPeriodicReader(metrics)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(ctx) }()

	// The adapter, and a logger whose records carry the trace and span ids.
	obs, err := pfcotel.New(pfcotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	if err != nil {
		return err
	}
	logger := slog.New(pfcotel.LogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})))

	// The hosted API's mock, in-process.
	mock, err := hostedmock.New(hostedmock.Options{})
	if err != nil {
		return err
	}
	defer mock.Close()
	srv := httptest.NewServer(mock)
	defer srv.Close()

	client, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"),
		pfc.WithObserver(obs), pfc.WithLogger(logger),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}))
	if err != nil {
		return err
	}
	img := photo()
	var out bytes.Buffer
	job, err := client.Correct(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "job %s: %s, %d bytes\n", job.ID, job.Status, out.Len())
	// Shutdown exports what the periodic reader has not yet.
	return mp.Shutdown(ctx)
}

// photo is a small PNG with a warm colour cast.
func photo() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			v := uint8(40 + x*2)
			img.SetNRGBA(x, y, color.NRGBA{R: v + 50, G: v + uint8(y), B: v / 2, A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}
