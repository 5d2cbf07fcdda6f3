package transport

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/internal/replicatest"
)

// TestMain keeps the default parallelism: several tests hold answers to
// within tens of milliseconds of a header timeout, which more tests at
// once under -race on two cores made them miss.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newServer starts an httptest server closed at the end of the test.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// netServer serves h on an in-memory network (replicatest.Net) for a test
// run in a synctest bubble, until the test ends, and returns its URL and
// an HTTP client of the network: the pauses, stalls and bounds of the
// test then run on the bubble's clock, at once, and a bound passes only
// once every party waits, never because the machine is slow.
func netServer(t *testing.T, h http.HandlerFunc) (url string, hc *http.Client) {
	t.Helper()
	nw := replicatest.NewNet(t)
	return nw.Serve(t, h).URL, nw.Client()
}

// newClient builds a Client with millisecond waits and a jitter of zero
// (every wait is exactly the upper bound of its step), unless o says otherwise.
func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.MinRetryWait == 0 {
		o.MinRetryWait = time.Millisecond
	}
	if o.MaxRetryWait == 0 {
		o.MaxRetryWait = 4 * time.Millisecond
	}
	c, err := New(o)
	require.NoError(t, err)
	c.jitter = func(max time.Duration) time.Duration { return max }
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// counter counts handler invocations.
type counter struct{ n atomic.Int64 }

func (c *counter) inc() int64 { return c.n.Add(1) }
func (c *counter) get() int64 { return c.n.Load() }

// logRecorder is a slog.Handler that keeps every record, renders them as
// text (to scan for secrets) and calls onRecord synchronously.
type logRecorder struct {
	mu       sync.Mutex
	records  []slog.Record
	text     bytes.Buffer
	onRecord func(slog.Record)
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	err := slog.NewTextHandler(&h.text, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(ctx, r)
	fn := h.onRecord
	h.mu.Unlock()
	if fn != nil {
		fn(r)
	}
	return err
}

func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.text.String()
}

// find returns the attributes of the records with message msg.
func (h *logRecorder) find(msg string) []map[string]slog.Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]slog.Value
	for _, r := range h.records {
		if r.Message != msg {
			continue
		}
		m := map[string]slog.Value{"level": slog.StringValue(r.Level.String())}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value
			return true
		})
		out = append(out, m)
	}
	return out
}

// assertNoSecrets fails if s contains any of secrets.
func assertNoSecrets(t *testing.T, s string, secrets ...string) {
	t.Helper()
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("secret %q leaked in:\n%s", sec, s)
		}
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func slogLogger(h slog.Handler) *slog.Logger { return slog.New(h) }
