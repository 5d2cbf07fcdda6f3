package pfcotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/contrib/pfcotel"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestLogsCarryTraceIDs: with LogHandler, each request record of a flow
// names the operation, its duration (answers) and the flow span's trace
// and span ids; a retried attempt gives a retry-wait span under the flow
// with its reason.
func TestLogsCarryTraceIDs(t *testing.T) {
	t.Parallel()
	tm := newTelemetry(t)
	var buf syncBuffer
	logger := slog.New(pfcotel.LogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	srv := hostileHosted(t, "x", "")
	c, err := hosted.NewClient(hostileKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithObserver(tm.obs), pfc.WithLogger(logger),
		pfc.WithRetries(1, time.Millisecond, time.Millisecond), hosted.WithPolling(pfc.WaitOptions{MinDelay: 1, MaxDelay: 1}))
	require.NoError(t, err)
	img := tinyJPEG(t, 5)
	_, err = c.Correct(context.Background(), strings.NewReader(string(img)), int64(len(img)), nil, io.Discard, nil)
	require.Error(t, err)

	var flowTrace, flowSpan string
	var waits int
	for _, s := range tm.spans.Ended() {
		if s.Name() == "hosted.Correct" {
			flowTrace, flowSpan = s.SpanContext().TraceID().String(), s.SpanContext().SpanID().String()
		}
	}
	for _, s := range tm.spans.Ended() {
		if s.Name() == "pfc.retry_wait" {
			waits++
			assert.Equal(t, flowSpan, s.Parent().SpanID().String())
			assert.Equal(t, "server error", attrValue(s.Attributes(), "pfc.retry.reason"))
		}
	}
	assert.GreaterOrEqual(t, waits, 1)
	require.NotEmpty(t, flowTrace)

	buf.mu.Lock()
	defer buf.mu.Unlock()
	var responses int
	for _, line := range strings.Split(strings.TrimSpace(buf.b.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		assert.Equal(t, "hosted.Correct", rec["op"], "%s", line)
		assert.Equal(t, flowTrace, rec["trace_id"], "%s", line)
		assert.Equal(t, flowSpan, rec["span_id"], "%s", line)
		if rec["msg"] == "pfc: response" {
			responses++
			assert.Contains(t, rec, "duration")
		}
	}
	assert.GreaterOrEqual(t, responses, 4)
}

// TestLogHandlerNil: LogHandler(nil) is a handler that drops every
// record, not one that panics on the first.
func TestLogHandlerNil(t *testing.T) {
	t.Parallel()
	l := slog.New(pfcotel.LogHandler(nil)).WithGroup("g").With("k", "v")
	l.InfoContext(context.Background(), "dropped")
}
