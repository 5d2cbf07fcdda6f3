package hostedmock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/bgchoice"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/reqlimit"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testsrv"
	"github.com/pfcsdk/pfc-go/webhook"
)

// DefaultAPIKey is the API key of a hosted mock started without
// Options.APIKeys, and of the standalone binary.
const DefaultAPIKey = "test-api-key"

// Options configures a hosted mock; the zero value is usable: one API
// key (DefaultAPIKey), the real clock, no processing delay, 24 h
// retention, a temporary data directory. Its fields: APIKeys []string
// (never printed or logged); Clock clock.Clock; ProcessingDelay,
// Retention, UploadURLTTL time.Duration; WebhookClient *http.Client,
// WebhookCAs *x509.CertPool, WebhookTimeout time.Duration; DataDir,
// BaseURL string; Processor Processor (nil: the reference engine);
// BGEngine mockserver.BGEngine; Workers int; MemoryBudget int64;
// MaxPresets int; Logger *slog.Logger; Faults *mockserver.FaultSpec;
// RateLimit float64 (requests per second per API key, 429 above; 0:
// none). See docs/mockserver.md for each.
type Options = hostedsvc.Config

// Server is the hosted API v2 mock: an http.Handler serving /v2/... (API
// key required), /storage/... (pre-signed uploads) and /files/... (public
// results). Create it with New and Close it when done.
type Server struct {
	svc     *hostedsvc.Service
	handler http.Handler
	dir     *testsrv.PrivateDir
	engine  *bgchoice.Engine // nil with Options.Processor
}

// New creates a hosted mock and starts its workers.
func New(opts Options) (*Server, error) { return newServer(opts, nil) }

// newServer is New with a test hook: remover, if not nil, replaces the
// background-removal engine of the reference engine.
func newServer(opts Options, remover matting.Remover) (*Server, error) {
	keys := opts.APIKeys
	if keys == nil {
		keys = []string{DefaultAPIKey}
	}
	if err := reqlimit.Check("RateLimit", opts.RateLimit); err != nil {
		return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
	}
	proc, bg, err := hostedProcessor(opts, remover)
	if err != nil {
		return nil, err
	}
	dir, err := testsrv.NewPrivateDir(opts.DataDir, "pfc-hosted-*")
	if err != nil {
		_ = bg.Release()
		return nil, err
	}
	cfg := opts
	cfg.APIKeys = slices.Clone(keys) // the caller may reuse its Options
	svc, err := hostedsvc.New(cfg, hostedsvc.Deps{WorkDir: dir.Path, Processor: proc, WebhookSigner: webhook.Sign})
	if err != nil {
		_ = dir.Close(nil)
		_ = bg.Release()
		if errors.Is(err, hostedsvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	h := reqlimit.Wrap(opts.RateLimit, reqlimit.Now(opts.Clock), reqlimit.APIKey(keys), "API key",
		opts.Faults.Wrap("hosted", opts.Logger, svc.Handler()))
	return &Server{svc: svc, handler: h, dir: dir, engine: bg}, nil
}

// hostedProcessor returns opts.Processor, or the reference engine with the
// background-removal engine opts.BGEngine asks for (remover, if not nil,
// in its place), which the caller releases (nil with opts.Processor).
func hostedProcessor(opts Options, remover matting.Remover) (Processor, *bgchoice.Engine, error) {
	if opts.Processor != nil {
		if opts.BGEngine != "" {
			return nil, nil, fmt.Errorf("%w: BGEngine applies to the reference engine only; it cannot be combined with Processor", mockserver.ErrInvalidOptions)
		}
		return opts.Processor, nil, nil
	}
	bg, err := bgchoice.Choose(remover, opts.BGEngine, opts.Logger)
	if err != nil {
		return nil, nil, err
	}
	e, err := engine.New(engine.Options{Remover: bg.Remover})
	if err != nil {
		_ = bg.Release()
		return nil, nil, fmt.Errorf("mockserver: %w", err)
	}
	return engineProcessor(e), bg, nil
}

// ServeHTTP serves the hosted API.
func (h *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Close stops the workers, cancels running jobs and webhook deliveries,
// interrupts uploads still being received (answered 503) and waits for
// them, stops every timer, and removes the data directory; from then on
// every request is answered 503 unavailable. Close the http.Server first
// where possible, so no other request is in flight. It is idempotent.
func (h *Server) Close() error { return errors.Join(h.dir.Close(h.svc.Close), h.engine.Release()) }

// BGEngine returns the background-removal engine of the reference engine:
// mockserver.BGEngineCPU or mockserver.BGEngineCUDA (Options.BGEngine after auto's
// choice), or "" when Options.Processor replaces the engine.
func (h *Server) BGEngine() mockserver.BGEngine {
	if h.engine == nil {
		return ""
	}
	return h.engine.Name
}

// WaitIdle blocks until nothing is running: every queued job has been
// processed (it may still wait for ProcessingDelay on the clock), every
// webhook attempt has finished or waits for its retry time, and no upload
// is being received. With a fake
// clock, call it after a request and after each Advance to synchronise
// without sleeping.
func (h *Server) WaitIdle(ctx context.Context) error { return h.svc.WaitIdle(ctx) }

// JobsStarted returns how many jobs the mock started since New: the
// GET /v2/pfc answers that started one, those answered from its cache
// included.
func (h *Server) JobsStarted() int { return h.svc.JobsStarted() }

// DataDir returns the server's private working directory.
func (h *Server) DataDir() string { return h.dir.Path }

// TestServer is a hosted mock running on httptest, from
// Start.
type TestServer struct {
	// URL is the API base URL, ending in /v2 (pass it to
	// pfc.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// APIKey is the first valid API key.
	APIKey string
	// Mock is the mock itself.
	Mock *Server
	// Client is a hosted API client for URL and APIKey. It polls fast
	// (every 10 to 100 ms: a mock job takes milliseconds), retries fast
	// (after 1 to 20 ms, a Retry-After capped at 20 ms) and takes the
	// extra options given to Start.
	Client *hosted.Client

	core *testsrv.Core
	keys [][]byte
}

// Start starts a hosted mock with opts (nil: the zero
// Options) on an httptest server, registers its shutdown with
// tb.Cleanup (the httptest server first, then Server.Close), and returns
// its base URL, API key and a ready client. clientOpts are applied to the
// client after the test server's own (base URL, HTTP client, fast
// polling and retries), so they can override them. It fails tb on error.
//
//	srv := hostedmock.Start(t, nil)
//	// or on a fake clock, with the client's requests logged:
//	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
//	srv = hostedmock.Start(t, &hostedmock.Options{Clock: fake}, pfc.WithLogger(slog.Default()))
func Start(tb testing.TB, opts *Options, clientOpts ...hosted.Option) *TestServer {
	tb.Helper()
	return start(tb, opts, nil, clientOpts...)
}

// start is Start with newServer's test hook.
func start(tb testing.TB, opts *Options, remover matting.Remover, clientOpts ...hosted.Option) *TestServer {
	tb.Helper()
	o := testsrv.Value(opts)
	h, err := newServer(o, remover)
	core := testsrv.Serve(tb, h, err, o.Clock)
	keys := o.APIKeys
	if len(keys) == 0 {
		keys = []string{DefaultAPIKey}
	}
	ts := &TestServer{URL: core.Server.URL + "/v2", Server: core.Server, APIKey: keys[0], Mock: h, core: core}
	for _, k := range keys {
		ts.keys = append(ts.keys, []byte(k))
	}
	copts := testsrv.ClientOptions(core, ts.URL, clientOpts, hosted.WithPolling(testsrv.Polling))
	if ts.Client, err = hosted.NewClient(ts.APIKey, copts...); err != nil {
		tb.Fatalf("mockserver: hosted client: %v", err)
	}
	return ts
}

// WaitIdle waits until the server has no work running (see
// Server.WaitIdle), failing the test if that takes longer than a minute.
func (s *TestServer) WaitIdle() { s.core.TB.Helper(); s.core.WaitIdle() }

// Advance moves the server's fake clock forward by d, one due timer at a
// time, waiting for the work each timer starts (a job completing, a
// webhook retry) before the next, so everything that falls due within d
// happens at its own simulated time. It fails the test unless the server
// was started with a *clock.Fake. A webhook receiver that never answers
// keeps the server busy, so Advance waits for it and fails the test after
// a minute (the attempt's timeout is itself on the clock): to test one,
// advance the clock.Fake directly past Options.WebhookTimeout.
func (s *TestServer) Advance(d time.Duration) { s.core.TB.Helper(); s.core.Advance(d) }

// Clock returns the server's clock (Options.Clock, or the real
// clock).
func (s *TestServer) Clock() clock.Clock { return s.core.Clock }

// WebhookClock is the webhook.Option that makes a webhook.Verifier check
// timestamps against the server's clock. The mock stamps its deliveries
// with its clock, so a verifier on the real clock rejects the deliveries
// of a server whose fake clock is far from now as too old or too new.
func (s *TestServer) WebhookClock() webhook.Option {
	return webhook.WithClock(s.core.Clock.Now)
}

// WebhookVerifier returns a webhook.Verifier for this server's deliveries:
// it accepts the signatures of every API key of the server and checks
// timestamps against the server's clock (WebhookClock); opts are applied
// after those. Use it with webhook.Middleware in a test receiver. It
// fails the test on invalid options.
func (s *TestServer) WebhookVerifier(opts ...webhook.Option) *webhook.Verifier {
	s.core.TB.Helper()
	v, err := webhook.NewVerifier(s.keys, append([]webhook.Option{s.WebhookClock()}, opts...)...)
	if err != nil {
		s.core.TB.Fatalf("mockserver: webhook verifier: %v", err)
	}
	return v
}
