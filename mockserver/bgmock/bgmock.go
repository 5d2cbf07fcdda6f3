package bgmock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/bgchoice"
	"github.com/pfcsdk/pfc-go/mockserver/internal/bgsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/reqlimit"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testsrv"
)

// DefaultLicenseKey is the valid licence key of a Server started
// without Options.LicenseKey, and of the standalone binary
// (-license-key).
const DefaultLicenseKey = "test-license-key"

// Options configures a Server, the background-removal container mock;
// the zero value is usable: licence key DefaultLicenseKey, not activated,
// the real clock, no processing delay, a temporary data directory. Its
// fields: LicenseKey string (never printed or logged); Activated bool;
// Organization, ModelVersion string and LicenseExpiry time.Time (what
// /Status reports); Clock clock.Clock; ProcessingDelay time.Duration;
// Engine mockserver.BGEngine; Workers int; MemoryBudget int64 (0:
// mockserver.DefaultMemoryBudget); MaxFileBytes int64; DataDir string;
// Logger *slog.Logger; Faults *mockserver.FaultSpec; RateLimit float64
// (requests per second per client address, 429 above; 0: none). See
// docs/mockserver.md for each.
type Options = bgsvc.Config

// hooks are the package's test hooks, which Options cannot hold.
type hooks struct {
	// remover replaces the CPU engine.
	remover matting.Remover
	// fault, when it returns true for a request, answers it 500
	// internal_error before the container sees it (the documented 500 rows).
	fault func(*http.Request) bool
}

// Server is the background-removal container mock: an
// http.Handler serving /Authorize/{license_key}, /Status, /SubmitImage,
// /CheckImage/{id}, /DownloadImage/{id} and /RemoveImage/{id}, with the
// reference engine's CPU background removal doing the work. Create it
// with New and Close it when done.
type Server struct {
	svc     *bgsvc.Service
	handler http.Handler
	dir     *testsrv.PrivateDir
	key     string
	engine  *bgchoice.Engine
}

// New creates a Server and starts its workers.
func New(opts Options) (*Server, error) { return newServer(opts, hooks{}) }

// newServer is New with the package's test hooks.
func newServer(opts Options, h hooks) (*Server, error) {
	if err := reqlimit.Check("RateLimit", opts.RateLimit); err != nil {
		return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
	}
	key := opts.LicenseKey
	if key == "" {
		key = DefaultLicenseKey
	}
	budget := opts.MemoryBudget
	if budget == 0 {
		budget = mockserver.DefaultMemoryBudget
	}
	eng, err := bgchoice.Choose(h.remover, opts.Engine, opts.Logger)
	if err != nil {
		return nil, err
	}
	dir, err := testsrv.NewPrivateDir(opts.DataDir, "pfc-bg-*")
	if err != nil {
		_ = eng.Release()
		return nil, err
	}
	cfg := opts
	cfg.LicenseKey, cfg.MemoryBudget = key, budget
	svc, err := bgsvc.New(cfg, bgsvc.Deps{
		WorkDir:    dir.Path,
		BudgetName: testsrv.BudgetName("bgmock.Options"),
		Remover:    eng.Remover,
	})
	if err != nil {
		_ = dir.Close(nil)
		_ = eng.Release()
		if errors.Is(err, bgsvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	b := &Server{svc: svc, handler: opts.Faults.Wrap("bg", opts.Logger, svc.Handler()), dir: dir, key: key}
	if fault := h.fault; fault != nil {
		next := b.handler
		b.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if fault(r) {
				httpx.WriteError(w, httpx.Errorf(http.StatusInternalServerError, httpx.CodeInternal, "simulated internal error"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	b.handler = reqlimit.Wrap(opts.RateLimit, reqlimit.Now(opts.Clock), reqlimit.ClientAddress, "client address", b.handler)
	b.engine = eng // released by Close
	if opts.Activated {
		if _, e := svc.Authorize(key); e != nil {
			_ = b.Close()
			return nil, fmt.Errorf("mockserver: activating: %s", e.Message)
		}
	}
	return b, nil
}

// ServeHTTP serves the container's API.
func (b *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.handler.ServeHTTP(w, r) }

// Close cancels running jobs, drops queued ones, interrupts uploads still
// being received (answered 503), stops every timer and removes the data
// directory. Close the http.Server first where possible, so no other
// request is in flight. It is idempotent.
func (b *Server) Close() error {
	return errors.Join(b.dir.Close(b.svc.Close), b.engine.Release())
}

// Engine returns the background-removal engine that runs: mockserver.BGEngineCPU or
// mockserver.BGEngineCUDA (Options.Engine after auto's choice).
func (b *Server) Engine() mockserver.BGEngine { return b.engine.Name }

// WaitIdle blocks until no job is queued or has its engine running: every
// job has ended or waits for its ProcessingDelay on the clock. With a fake
// clock, call it after a request and after each Advance to synchronise
// without sleeping.
func (b *Server) WaitIdle(ctx context.Context) error { return b.svc.WaitIdle(ctx) }

// DataDir returns the container's private working directory.
func (b *Server) DataDir() string { return b.dir.Path }

// JobCount returns how many jobs the container holds (not yet removed),
// for tests that check a client cleans up after itself.
func (b *Server) JobCount() int { return b.svc.JobCount() }

// JobsStarted returns how many jobs the container started since New (its
// SubmitImage answers that queued one), removed ones included.
func (b *Server) JobsStarted() int { return b.svc.JobsStarted() }

// TestServer is a Server running on httptest, from
// Start.
type TestServer struct {
	// URL is the container's base URL (pass it to pfc.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// LicenseKey is the valid licence key.
	LicenseKey string
	// Mock is the mock itself.
	Mock *Server
	// Client is a bgcontainer client for URL holding LicenseKey. It polls
	// fast (every 10 to 100 ms), retries fast (after 1 to 20 ms, a
	// Retry-After capped at 20 ms) and takes the extra options given to
	// Start.
	Client *bgcontainer.Client

	core *testsrv.Core
}

// Start starts a Server with opts (nil: the zero
// Options) on an httptest server, registers its shutdown with
// tb.Cleanup (the httptest server first, then Server.Close), and
// returns its URL, licence key and a ready client. clientOpts are applied
// to the client after the test server's own (base URL, HTTP client, fast
// polling and retries), so they can override them. It fails tb on error.
//
//	srv := bgmock.Start(t, nil)
//	res, err := srv.Client.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil, nil) // activates, then removes the job
func Start(tb testing.TB, opts *Options, clientOpts ...bgcontainer.Option) *TestServer {
	tb.Helper()
	return start(tb, opts, hooks{}, clientOpts...)
}

// start is Start with the package's test hooks.
func start(tb testing.TB, opts *Options, h hooks, clientOpts ...bgcontainer.Option) *TestServer {
	tb.Helper()
	o := testsrv.Value(opts)
	b, err := newServer(o, h)
	core := testsrv.Serve(tb, b, err, o.Clock)
	ts := &TestServer{URL: core.Server.URL, Server: core.Server, LicenseKey: b.key, Mock: b, core: core}
	copts := testsrv.ClientOptions(core, ts.URL, clientOpts, bgcontainer.WithPolling(testsrv.Polling))
	if ts.Client, err = bgcontainer.NewClient(ts.LicenseKey, copts...); err != nil {
		tb.Fatalf("mockserver: bgcontainer client: %v", err)
	}
	return ts
}

// WaitIdle waits until the container has no job queued or running (see
// Server.WaitIdle), failing the test if that takes longer than a
// minute.
func (s *TestServer) WaitIdle() { s.core.TB.Helper(); s.core.WaitIdle() }

// Advance moves the container's fake clock forward by d, one due timer at
// a time, waiting for the work each timer starts, so that processing
// delays end at their simulated times. It fails the test unless the
// container was started with a *clock.Fake.
func (s *TestServer) Advance(d time.Duration) { s.core.TB.Helper(); s.core.Advance(d) }

// Clock returns the container's clock (Options.Clock, or the
// real clock).
func (s *TestServer) Clock() clock.Clock { return s.core.Clock }
