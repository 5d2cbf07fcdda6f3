package pfcotel_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// headerLog records, per request path, whether a traceparent was sent.
type headerLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent map[string]bool
}

func (h *headerLog) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.sent[r.Method+" "+r.URL.Path] = r.Header.Get("Traceparent") != ""
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

// TestCorrectFileSpanTree: CorrectFile against the mock is one span with a
// client span per request, in order: the upload ticket, the pre-signed
// upload, the start, each poll, the download. Only the service's own
// endpoints get the trace context.
func TestCorrectFileSpanTree(t *testing.T) {
	t.Parallel()
	tm := newTelemetry(t)
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instant}, pfc.WithObserver(tm.obs))
	hl := &headerLog{next: srv.Server.Client().Transport, sent: map[string]bool{}}
	c, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL), pfc.WithObserver(tm.obs),
		pfc.WithHTTPClient(&http.Client{Transport: hl}), hosted.WithPolling(pfc.WaitOptions{MinDelay: 1, MaxDelay: 1}))
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, tinyJPEG(t, 1), 0o644))
	_, err = c.CorrectFile(context.Background(), src, filepath.Join(dir, "out.jpg"), nil, nil)
	require.NoError(t, err)

	spans := tm.spans.Ended()
	var root sdktrace.ReadOnlySpan
	for _, s := range spans {
		if !s.Parent().IsValid() {
			require.Nil(t, root, "one root span")
			root = s
		}
	}
	require.NotNil(t, root)
	assert.Equal(t, "hosted.CorrectFile", root.Name())
	var children []string
	polls := 0
	for _, s := range spans {
		if s == root {
			continue
		}
		require.Equal(t, root.SpanContext().SpanID(), s.Parent().SpanID(), "%s is a child of the flow", s.Name())
		require.Equal(t, trace.SpanKindClient, s.SpanKind())
		if s.Name() == "GET /status/{jobID}" {
			polls++
			if polls > 1 {
				continue
			}
		}
		children = append(children, s.Name())
	}
	assert.Equal(t, []string{"GET /upload", "PUT", "GET /pfc", "GET /status/{jobID}", "GET"}, children)
	assert.GreaterOrEqual(t, polls, 1)

	for _, s := range spans {
		if s.Name() != "GET /status/{jobID}" {
			continue
		}
		attrs := attribute.NewSet(s.Attributes()...)
		v, _ := attrs.Value("url.template")
		assert.Equal(t, "/status/{jobID}", v.AsString())
		v, _ = attrs.Value("http.response.status_code")
		assert.EqualValues(t, 200, v.AsInt64())
		v, _ = attrs.Value("http.request.method")
		assert.Equal(t, "GET", v.AsString())
		_, ok := attrs.Value("server.address")
		assert.True(t, ok)
	}
	var completed bool
	for _, e := range root.Events() {
		completed = completed || fmt.Sprint(attrValue(e.Attributes, "pfc.job.status")) == "COMPLETED"
	}
	assert.True(t, completed, "the flow span has the job's COMPLETED event")

	hl.mu.Lock()
	defer hl.mu.Unlock()
	for req, sent := range hl.sent {
		own := req == "GET /v2/upload" || req == "GET /v2/pfc" || len(req) > 15 && req[:15] == "GET /v2/status/"
		assert.Equal(t, own, sent, "traceparent on %s", req)
	}

	m := tm.metrics(t)
	assertCounter(t, m["pfc.jobs.started"], 1, "pfc.api", "hosted")
	assertCounter(t, m["pfc.jobs.finished"], 1, "pfc.job.status", "COMPLETED")
	hist := m["http.client.request.duration"].Data.(metricdata.Histogram[float64])
	var templates []string
	for _, dp := range hist.DataPoints {
		if v, ok := dp.Attributes.Value("url.template"); ok {
			templates = append(templates, v.AsString())
		}
	}
	assert.ElementsMatch(t, []string{"/upload", "/pfc", "/status/{jobID}"}, templates)
}

func attrValue(kvs []attribute.KeyValue, key string) any {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.AsInterface()
		}
	}
	return nil
}

// assertCounter checks that the sum of the counter's points with key=value
// is want.
func assertCounter(t *testing.T, m metricdata.Metrics, want int64, key, value string) {
	t.Helper()
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok, "%s is an int64 sum", m.Name)
	var got int64
	for _, dp := range sum.DataPoints {
		if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value {
			got += dp.Value
		}
	}
	assert.Equal(t, want, got, "%s{%s=%s}", m.Name, key, value)
}

// TestBulkRunSpans: a bulk run of 20 items is one run span with 20 item
// spans under it, each with its flow under it; the bulk metrics count 20
// done and none in flight.
func TestBulkRunSpans(t *testing.T) {
	t.Parallel()
	tm := newTelemetry(t)
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instant, Workers: 4}, pfc.WithObserver(tm.obs))
	in, out := t.TempDir(), t.TempDir()
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(in, fmt.Sprintf("img%02d.jpg", i)), tinyJPEG(t, i), 0o644))
	}
	rep, err := srv.Client.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions[*hosted.Job]{Concurrency: 4})
	require.NoError(t, err)
	require.Equal(t, 20, rep.Done)

	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	var runs, items, flows []sdktrace.ReadOnlySpan
	for _, s := range tm.spans.Ended() {
		byID[s.SpanContext().SpanID()] = s
		switch s.Name() {
		case "hosted.bulk":
			runs = append(runs, s)
		case "hosted.bulk item":
			items = append(items, s)
		case "hosted.CorrectFile":
			flows = append(flows, s)
		}
	}
	require.Len(t, runs, 1)
	require.Len(t, items, 20)
	require.Len(t, flows, 20)
	for _, it := range items {
		assert.Equal(t, runs[0].SpanContext().SpanID(), it.Parent().SpanID())
	}
	for _, f := range flows {
		p, ok := byID[f.Parent().SpanID()]
		require.True(t, ok)
		assert.Equal(t, "hosted.bulk item", p.Name())
	}
	m := tm.metrics(t)
	assertCounter(t, m["pfc.bulk.items.done"], 20, "pfc.operation", "hosted.bulk")
	assertCounter(t, m["pfc.bulk.items.in_flight"], 0, "pfc.operation", "hosted.bulk")
	assertCounter(t, m["pfc.jobs.started"], 20, "pfc.api", "hosted")
}

// TestErrorTypes: a failed operation's span has error.type: the status of
// an API error, a word per class of the SDK's errors (the first that
// matches), "_OTHER" for any other; never the error's text.
func TestErrorTypes(t *testing.T) {
	t.Parallel()
	tm := newTelemetry(t)
	for want, err := range map[string]error{
		"503":                &pfc.APIError{StatusCode: 503},
		"canceled":           fmt.Errorf("stopped: %w", context.Canceled),
		"deadline_exceeded":  context.DeadlineExceeded,
		"timeout":            pfc.ErrResponseHeaderTimeout,
		"truncated_response": pfc.ErrTruncatedResponse,
		"unreachable":        pfc.ErrUnreachable,
		"job_failed":         fmt.Errorf("%w and %w", pfc.ErrJobFailed, pfc.ErrWaitTimeout),
		"wait_timeout":       pfc.ErrWaitTimeout,
		"invalid_parameter":  pfc.ErrInvalidParameter,
		"download_too_large": pfc.ErrDownloadTooLarge,
		"invalid_response":   pfc.ErrInvalidResponse,
		"_OTHER":             errors.New("secret-text"),
	} {
		op := &pfc.Operation{Name: want, Kind: "flow", Start: time.Now(), Err: err}
		tm.obs.EndOperation(tm.obs.StartOperation(context.Background(), op), op)
	}
	got := map[string]string{}
	for _, s := range tm.spans.Ended() {
		for _, a := range s.Attributes() {
			if a.Key == semconv.ErrorTypeKey {
				got[s.Name()] = a.Value.AsString()
			}
		}
	}
	require.Len(t, got, 12)
	for name, v := range got {
		assert.Equal(t, name, v)
	}
}
