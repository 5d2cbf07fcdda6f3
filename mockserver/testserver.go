package mockserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// Polling of the clients a test server hands out: a mock answers in
// milliseconds, so the clients poll fast (the clients' defaults, made for
// real services, would make a 0.2 s job wait half a second or more).
const (
	testPollMinDelay = 10 * time.Millisecond
	testPollMaxDelay = 100 * time.Millisecond
)

// Retries of the clients a test server hands out: the mock is in
// process, so a failed attempt (a fault the test injected, a refusal of
// the memory budget) is retried after 1 to 20 ms, and a Retry-After (1 s
// for the fault kind 429) is capped at 20 ms; the clients' defaults, made
// for real services (0.5 to 20 s), would make a test with faults take
// seconds. The number of retries stays the clients' default. Clients a
// user builds keep the defaults.
const (
	testRetryMinWait = time.Millisecond
	testRetryMaxWait = 20 * time.Millisecond
)

// idleTimeout bounds WaitIdle in tests: a broken backend fails the test
// instead of hanging it.
const idleTimeout = time.Minute

// backend is what the shared test-server core needs of a mock backend
// (Hosted, and the container mocks).
type backend interface {
	http.Handler
	// Close stops the backend and removes its data directory.
	Close() error
	// WaitIdle blocks until no work runs (only timers wait).
	WaitIdle(ctx context.Context) error
}

// testServerCore is the part of every <Backend>TestServer that does not
// depend on the backend: the httptest server, the shutdown order, the
// clock, WaitIdle and Advance. A backend's Start function is then:
//
//	func StartX(tb testing.TB, opts *XOptions, clientOpts ...x.Option) *XTestServer {
//		tb.Helper()
//		var o XOptions
//		if opts != nil {
//			o = *opts
//		}
//		b, err := NewX(o) // NewX: newPrivateDir(o.DataDir, "pfc-x-*"); Close: dir.close(svc.Close)
//		if err != nil {
//			tb.Fatalf("mockserver: %v", err)
//		}
//		core := startTestServer(tb, b, o.Clock)
//		c, err := x.NewClient(append([]x.Option{x.WithBaseURL(core.server.URL),
//			x.WithHTTPClient(core.server.Client()), x.WithPolling(/* testPollMinDelay, testPollMaxDelay */),
//			pfc.WithRetries(0, testRetryMinWait, testRetryMaxWait), pfc.WithMaxRetryAfter(testRetryMaxWait)}, clientOpts...)...)
//		if err != nil {
//			tb.Fatalf("mockserver: client: %v", err)
//		}
//		return &XTestServer{URL: core.server.URL, Server: core.server, X: b, Client: c, core: core}
//	}
//
//	func (s *XTestServer) WaitIdle()               { s.core.tb.Helper(); s.core.waitIdle() }
//	func (s *XTestServer) Advance(d time.Duration) { s.core.tb.Helper(); s.core.advance(d) }
//	func (s *XTestServer) Clock() clock.Clock      { return s.core.clock }
type testServerCore struct {
	tb     testing.TB
	server *httptest.Server
	clock  clock.Clock // never nil
	b      backend
}

// startTestServer serves b on a new httptest server. With tb.Cleanup it
// closes the server first (no request is in flight any more), then b
// (which removes its data directory), failing tb if that fails. clk is
// the backend's clock; nil means the real one.
func startTestServer(tb testing.TB, b backend, clk clock.Clock) *testServerCore {
	tb.Helper()
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("mockserver: %v", err)
		}
	})
	srv := httptest.NewServer(b)
	tb.Cleanup(srv.Close) // runs first
	if clk == nil {
		clk = clock.Real()
	}
	return &testServerCore{tb: tb, server: srv, clock: clk, b: b}
}

// waitIdle waits until the backend has no work running, failing the test
// if that takes longer than a minute.
func (c *testServerCore) waitIdle() {
	c.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), idleTimeout)
	defer cancel()
	if err := c.b.WaitIdle(ctx); err != nil {
		c.tb.Fatalf("mockserver: server did not become idle: %v", err)
	}
}

// advance moves a fake clock forward by d, one due timer at a time,
// waiting for the work each timer starts before the next.
func (c *testServerCore) advance(d time.Duration) {
	c.tb.Helper()
	fake, ok := c.clock.(*clock.Fake)
	if !ok {
		c.tb.Fatalf("mockserver: Advance needs the server's Clock option to be a *clock.Fake")
		return
	}
	c.waitIdle()
	end := fake.Now().Add(d)
	for {
		next, ok := fake.NextDeadline()
		if !ok || next.After(end) {
			break
		}
		fake.AdvanceTo(next)
		c.waitIdle()
	}
	fake.AdvanceTo(end)
	c.waitIdle()
}

// privateDir is a backend's private working directory: created in a
// parent directory (empty: the system temporary directory) and removed,
// once, by the backend's Close.
type privateDir struct {
	path string
	once sync.Once
	err  error
}

// newPrivateDir creates a directory named pattern (see os.MkdirTemp) in
// parent.
func newPrivateDir(parent, pattern string) (*privateDir, error) {
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return nil, fmt.Errorf("mockserver: data directory: %w", err)
	}
	return &privateDir{path: dir}, nil
}

// close runs stop (which must leave nothing writing into the directory)
// and removes the directory, once; later calls return the first result.
func (d *privateDir) close(stop func()) error {
	d.once.Do(func() {
		if stop != nil {
			stop()
		}
		if err := os.RemoveAll(d.path); err != nil {
			d.err = fmt.Errorf("mockserver: removing the data directory: %w", err)
		}
	})
	return d.err
}
