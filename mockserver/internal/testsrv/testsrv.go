// Package testsrv is what the mocks' in-process test servers share: the
// httptest server and its shutdown order, the clock, WaitIdle and
// Advance, the fast polling and retries of the clients they hand out, and
// a backend's private data directory.
package testsrv

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Polling of the clients a test server hands out: a mock answers in
// milliseconds, so the clients poll fast (the clients' defaults, made for
// real services, would make a 0.2 s job wait half a second or more).
const (
	PollMinDelay = 10 * time.Millisecond
	PollMaxDelay = 100 * time.Millisecond
)

// Polling is the WaitOptions of PollMinDelay and PollMaxDelay, for a
// client's WithPolling.
var Polling = pfc.WaitOptions{MinDelay: PollMinDelay, MaxDelay: PollMaxDelay}

// Retries of the clients a test server hands out: the mock is in
// process, so a failed attempt (a fault the test injected, a refusal of
// the memory budget) is retried after 1 to 20 ms, and a Retry-After (1 s
// for the fault kind 429) is capped at 20 ms; the clients' defaults, made
// for real services (0.5 to 20 s), would make a test with faults take
// seconds. The number of retries stays the clients' default. Clients a
// user builds keep the defaults.
const (
	RetryMinWait = time.Millisecond
	RetryMaxWait = 20 * time.Millisecond
)

// idleTimeout bounds WaitIdle in tests: a broken backend fails the test
// instead of hanging it.
const idleTimeout = time.Minute

// Backend is what the shared test-server core needs of a mock backend.
type Backend interface {
	http.Handler
	// Close stops the backend and removes its data directory.
	Close() error
	// WaitIdle blocks until no work runs (only timers wait).
	WaitIdle(ctx context.Context) error
}

// Core is the part of every mock's TestServer that does not depend on
// the backend: the httptest server, the shutdown order, the clock,
// WaitIdle and Advance. A mock's Start is then:
//
//	func Start(tb testing.TB, opts *Options, clientOpts ...x.Option) *TestServer {
//		tb.Helper()
//		o := testsrv.Value(opts)
//		b, err := New(o) // New: testsrv.NewPrivateDir(o.DataDir, "pfc-x-*"); Close: dir.Close(svc.Close)
//		core := testsrv.Serve(tb, b, err, o.Clock)
//		c, err := x.NewClient(testsrv.ClientOptions(core, core.Server.URL, clientOpts, x.WithPolling(testsrv.Polling))...)
//		if err != nil {
//			tb.Fatalf("x: client: %v", err)
//		}
//		return &TestServer{URL: core.Server.URL, Server: core.Server, X: b, Client: c, core: core}
//	}
//
//	func (s *TestServer) WaitIdle()               { s.core.TB.Helper(); s.core.WaitIdle() }
//	func (s *TestServer) Advance(d time.Duration) { s.core.TB.Helper(); s.core.Advance(d) }
//	func (s *TestServer) Clock() clock.Clock      { return s.core.Clock }
type Core struct {
	TB     testing.TB
	Server *httptest.Server
	Clock  clock.Clock // never nil
	b      Backend
}

// Value returns *opts, or the zero options when opts is nil: what a
// mock's Start and StartFleet do with their opts.
func Value[O any](opts *O) O {
	var o O
	if opts != nil {
		o = *opts
	}
	return o
}

// ClientOptions returns the options of the client a test server hands
// out: base URL baseURL, the test server's HTTP client and the fast
// retries (RetryMinWait, RetryMaxWait, a Retry-After capped at
// RetryMaxWait), then own (a client's fast polling), then clientOpts, so
// that the caller's options override the test server's.
func ClientOptions[O ~func(*config.Config)](c *Core, baseURL string, clientOpts []O, own ...O) []O {
	opts := []O{
		O(pfc.WithBaseURL(baseURL)),
		O(pfc.WithHTTPClient(c.Server.Client())),
		O(pfc.WithRetries(0, RetryMinWait, RetryMaxWait)),
		O(pfc.WithMaxRetryAfter(RetryMaxWait)),
	}
	opts = append(opts, own...)
	return append(opts, clientOpts...)
}

// Start serves b on a new httptest server. With tb.Cleanup it closes the
// server first (no request is in flight any more), then b (which removes
// its data directory), failing tb if that fails. clk is the backend's
// clock; nil means the real one.
func Start(tb testing.TB, b Backend, clk clock.Clock) *Core {
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
	return &Core{TB: tb, Server: srv, Clock: clk, b: b}
}

// Serve fails tb with err, the error of the backend's constructor, if
// any; else it serves b as Start does. A mock's Start is then
//
//	b, err := New(o)
//	core := testsrv.Serve(tb, b, err, o.Clock)
func Serve(tb testing.TB, b Backend, err error, clk clock.Clock) *Core {
	tb.Helper()
	if err != nil {
		tb.Fatalf("mockserver: %v", err)
	}
	return Start(tb, b, clk)
}

// WaitIdle waits until the backend has no work running, failing the test
// if that takes longer than a minute.
func (c *Core) WaitIdle() {
	c.TB.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), idleTimeout)
	defer cancel()
	if err := c.b.WaitIdle(ctx); err != nil {
		c.TB.Fatalf("mockserver: server did not become idle: %v", err)
	}
}

// Advance moves a fake clock forward by d, one due timer at a time,
// waiting for the work each timer starts before the next.
func (c *Core) Advance(d time.Duration) {
	c.TB.Helper()
	fake, ok := c.Clock.(*clock.Fake)
	if !ok {
		c.TB.Fatalf("mockserver: Advance needs the server's Clock option to be a *clock.Fake")
		return
	}
	c.WaitIdle()
	end := fake.Now().Add(d)
	for {
		next, ok := fake.NextDeadline()
		if !ok || next.After(end) {
			break
		}
		fake.AdvanceTo(next)
		c.WaitIdle()
	}
	fake.AdvanceTo(end)
	c.WaitIdle()
}

// PrivateDir is a backend's private working directory: created in a
// parent directory (empty: the system temporary directory) and removed,
// once, by the backend's Close.
type PrivateDir struct {
	// Path is the directory.
	Path string
	once sync.Once
	err  error
}

// NewPrivateDir creates a directory named pattern (see os.MkdirTemp) in
// parent.
func NewPrivateDir(parent, pattern string) (*PrivateDir, error) {
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return nil, fmt.Errorf("mockserver: data directory: %w", err)
	}
	return &PrivateDir{Path: dir}, nil
}

// Close runs stop (which must leave nothing writing into the directory)
// and removes the directory, once; later calls return the first result.
func (d *PrivateDir) Close(stop func()) error {
	d.once.Do(func() {
		if stop != nil {
			stop()
		}
		if err := os.RemoveAll(d.Path); err != nil {
			d.err = fmt.Errorf("mockserver: removing the data directory: %w", err)
		}
	})
	return d.err
}

// BudgetName names what sets a container mock's MemoryBudget in its
// refusal of an image over the whole budget, for the option's struct: the
// option, or the binary's flag.
func BudgetName(options string) string {
	return options + ".MemoryBudget (pfc-mockserver: -memory-budget)"
}

// Fleet starts n replicas with start, each with its own copy of opts (the
// zero options when nil) that replica tags with its index first: the
// containers' StartFleet.
func Fleet[O, S any](n int, opts *O, replica func(o *O, i int), start func(o *O) S) []S {
	fleet := make([]S, n)
	for i := range fleet {
		o := Value(opts)
		replica(&o, i)
		fleet[i] = start(&o)
	}
	return fleet
}
