package mockserver

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/webhook"
)

// DefaultAPIKey is the API key of a Hosted server started without
// HostedOptions.APIKeys, and of the standalone binary.
const DefaultAPIKey = "test-api-key"

// HostedOptions configures a Hosted server. The zero value is usable: one
// API key (DefaultAPIKey), the real clock, no processing delay, 24 h
// retention, a temporary data directory.
type HostedOptions struct {
	// APIKeys are the valid X-API-KEY values; nil means {DefaultAPIKey}.
	// Each key is a separate account, and the key used on /pfc signs that
	// job's webhooks.
	APIKeys []string
	// Clock drives every simulated duration (processing delay, retention,
	// pre-signed URL expiry, webhook retries); nil means clock.Real(). Use
	// clock.NewFake in tests.
	Clock clock.Clock
	// ProcessingDelay keeps each job PROCESSING at least this long on
	// Clock before it completes or fails (default 0).
	ProcessingDelay time.Duration
	// Retention is how long job records and corrected files stay after a
	// job ends: 24 h (the default) to 7 days.
	Retention time.Duration
	// UploadURLTTL is how long pre-signed upload URLs are valid on Clock
	// (default 1 h). With a clock.Scaled, whose Now is the wall clock, the
	// URL's expiry is the wall time at which the scaled TTL ends (at
	// -time-scale 0.001 a 1-hour URL expires after 3.6 s).
	UploadURLTTL time.Duration
	// WebhookClient sends webhooks; use an httptest.NewTLSServer's
	// Client() to reach a test receiver. nil builds a client trusting
	// WebhookCAs.
	WebhookClient *http.Client
	// WebhookCAs are the CAs trusted for webhook targets when
	// WebhookClient is nil; nil means the system roots.
	WebhookCAs *x509.CertPool
	// WebhookTimeout bounds each delivery attempt (default 30 s), on
	// Clock, but unscaled: on a clock.Scaled it is WebhookTimeout of wall
	// time, since it bounds a real network exchange.
	WebhookTimeout time.Duration
	// DataDir is where a private working directory is created (and removed
	// by Close); empty means the system temporary directory.
	DataDir string
	// BaseURL, if set, replaces scheme://host in the URLs the server hands
	// out (statusEndpoint, uploadUrl, correctedFile), for a server behind a
	// proxy. It must not end in /v2 (NewHosted refuses it: the server
	// serves /v2 itself; the client's base URL is BaseURL+"/v2").
	BaseURL string
	// Processor corrects images; nil means the reference engine
	// (HostedEngineProcessor over a new Engine). Videos never reach it.
	Processor HostedProcessor
	// BGEngine picks the background-removal engine of the reference
	// engine that NewHosted creates when Processor is nil (jobs with a
	// background option): BGEngineCPU (empty means it), BGEngineCUDA or
	// BGEngineAuto, as BGContainerOptions.Engine. Asking for cuda where it
	// cannot run fails NewHosted with an *EngineUnavailableError; setting
	// it together with Processor fails with ErrInvalidOptions. The log
	// says which engine runs.
	BGEngine BGEngine
	// Workers bounds the jobs processed at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images processed at once, in
	// bytes; each job counts 6 bytes a pixel of its image (twice for a
	// 16-bit PNG or a progressive JPEG), of its resized output and of its
	// background image (see "Memory" in docs/mockserver.md); 0 means
	// DefaultMemoryBudget. Jobs that would exceed it wait in the queue
	// (PENDING), in order; an image larger than the whole budget is
	// processed alone.
	MemoryBudget int64
	// MaxPresets caps the custom presets of one account; 0 means
	// DefaultMaxPresets. Creating one more answers 409 conflict.
	MaxPresets int
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Faults injects failures into the answers (see ParseFaults and the
	// package documentation's "Fault injection"); nil injects none.
	Faults *FaultSpec

	// remover, set by tests only, replaces the background-removal engine
	// of the reference engine.
	remover matting.Remover
}

// Hosted is the hosted API v2 mock: an http.Handler serving /v2/... (API
// key required), /storage/... (pre-signed uploads) and /files/... (public
// results). Create it with NewHosted and Close it when done.
type Hosted struct {
	svc     *hostedsvc.Service
	handler http.Handler
	dir     *privateDir
	engine  *bgEngine // nil with HostedOptions.Processor
}

// DefaultMemoryBudget is the default of HostedOptions.MemoryBudget (and of
// the container mocks), in bytes: 1.2 GB of live heap, what 200 megapixels
// of an ordinary 8-bit image hold while corrected, about 2 GB of heap with
// the collector's headroom.
const DefaultMemoryBudget = 1_200_000_000

// budgetName names what sets a container mock's MemoryBudget in its
// refusal of an image over the whole budget, for the option's struct: the
// option, or the binary's flag.
func budgetName(options string) string {
	return options + ".MemoryBudget (pfc-mockserver: -memory-budget)"
}

// DefaultMaxPresets is the default of HostedOptions.MaxPresets: an
// account holds at most 10,000 custom presets.
const DefaultMaxPresets = hostedsvc.DefaultMaxPresets

// ErrInvalidOptions is wrapped by NewHosted's errors for unusable options.
var ErrInvalidOptions = errors.New("mockserver: invalid options")

// NewHosted creates a Hosted server and starts its workers.
func NewHosted(opts HostedOptions) (*Hosted, error) {
	keys := opts.APIKeys
	if keys == nil {
		keys = []string{DefaultAPIKey}
	}
	proc, bg, err := hostedProcessor(opts)
	if err != nil {
		return nil, err
	}
	dir, err := newPrivateDir(opts.DataDir, "pfc-hosted-*")
	if err != nil {
		_ = bg.release()
		return nil, err
	}
	svc, err := hostedsvc.New(hostedsvc.Config{
		APIKeys:         keys,
		Clock:           opts.Clock,
		ProcessingDelay: opts.ProcessingDelay,
		Retention:       opts.Retention,
		UploadURLTTL:    opts.UploadURLTTL,
		DataDir:         dir.path,
		BaseURL:         opts.BaseURL,
		Processor:       serviceProcessor(proc),
		Workers:         opts.Workers,
		MemoryBudget:    opts.MemoryBudget,
		MaxPresets:      opts.MaxPresets,
		WebhookClient:   opts.WebhookClient,
		WebhookCAs:      opts.WebhookCAs,
		WebhookSigner:   webhook.Sign,
		WebhookTimeout:  opts.WebhookTimeout,
		Logger:          opts.Logger,
	})
	if err != nil {
		_ = dir.close(nil)
		_ = bg.release()
		if errors.Is(err, hostedsvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	return &Hosted{svc: svc, handler: opts.Faults.wrap(hostedFaults, opts.Logger, svc.Handler()), dir: dir, engine: bg}, nil
}

// hostedProcessor returns opts.Processor, or the reference engine with the
// background-removal engine opts.BGEngine asks for (which the caller
// releases; nil with opts.Processor).
func hostedProcessor(opts HostedOptions) (HostedProcessor, *bgEngine, error) {
	if opts.Processor != nil {
		if opts.BGEngine != "" {
			return nil, nil, fmt.Errorf("%w: BGEngine applies to the reference engine only; it cannot be combined with Processor", ErrInvalidOptions)
		}
		return opts.Processor, nil, nil
	}
	bg, err := chooseBGEngine(opts.remover, opts.BGEngine, opts.Logger)
	if err != nil {
		return nil, nil, err
	}
	e, err := engine.New(engine.Options{Remover: bg.remover})
	if err != nil {
		_ = bg.release()
		return nil, nil, fmt.Errorf("mockserver: %w", err)
	}
	return hostedEngineProcessor(e), bg, nil
}

// ServeHTTP serves the hosted API.
func (h *Hosted) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Close stops the workers, cancels running jobs and webhook deliveries,
// interrupts uploads still being received (answered 503) and waits for
// them, stops every timer, and removes the data directory; from then on
// every request is answered 503 unavailable. Close the http.Server first
// where possible, so no other request is in flight. It is idempotent.
func (h *Hosted) Close() error { return errors.Join(h.dir.close(h.svc.Close), h.engine.release()) }

// BGEngine returns the background-removal engine of the reference engine:
// BGEngineCPU or BGEngineCUDA (HostedOptions.BGEngine after auto's
// choice), or "" when HostedOptions.Processor replaces the engine.
func (h *Hosted) BGEngine() BGEngine {
	if h.engine == nil {
		return ""
	}
	return h.engine.name
}

// WaitIdle blocks until nothing is running: every queued job has been
// processed (it may still wait for ProcessingDelay on the clock), every
// webhook attempt has finished or waits for its retry time, and no upload
// is being received. With a fake
// clock, call it after a request and after each Advance to synchronise
// without sleeping.
func (h *Hosted) WaitIdle(ctx context.Context) error { return h.svc.WaitIdle(ctx) }

// DataDir returns the server's private working directory.
func (h *Hosted) DataDir() string { return h.dir.path }

// HostedTestServer is a Hosted server running on httptest, from
// StartHosted.
type HostedTestServer struct {
	// URL is the API base URL, ending in /v2 (pass it to
	// pfc.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// APIKey is the first valid API key.
	APIKey string
	// Hosted is the mock itself.
	Hosted *Hosted
	// Client is a hosted API client for URL and APIKey. It polls fast
	// (every 10 to 100 ms: a mock job takes milliseconds), retries fast
	// (after 1 to 20 ms, a Retry-After capped at 20 ms) and takes the
	// extra options given to StartHosted.
	Client *hosted.Client

	core *testServerCore
	keys [][]byte
}

// StartHosted starts a Hosted server with opts (nil: the zero
// HostedOptions) on an httptest server, registers its shutdown with
// tb.Cleanup (the httptest server first, then Hosted.Close), and returns
// its base URL, API key and a ready client. clientOpts are applied to the
// client after the test server's own (base URL, HTTP client, fast
// polling and retries), so they can override them. It fails tb on error.
//
//	srv := mockserver.StartHosted(t, nil)
//	// or on a fake clock, with the client's requests logged:
//	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
//	srv = mockserver.StartHosted(t, &mockserver.HostedOptions{Clock: fake}, pfc.WithLogger(slog.Default()))
func StartHosted(tb testing.TB, opts *HostedOptions, clientOpts ...hosted.Option) *HostedTestServer {
	tb.Helper()
	var o HostedOptions
	if opts != nil {
		o = *opts
	}
	h, err := NewHosted(o)
	if err != nil {
		tb.Fatalf("mockserver: %v", err)
	}
	core := startTestServer(tb, h, o.Clock)
	keys := o.APIKeys
	if len(keys) == 0 {
		keys = []string{DefaultAPIKey}
	}
	ts := &HostedTestServer{URL: core.server.URL + "/v2", Server: core.server, APIKey: keys[0], Hosted: h, core: core}
	for _, k := range keys {
		ts.keys = append(ts.keys, []byte(k))
	}
	copts := append([]hosted.Option{
		pfc.WithBaseURL(ts.URL),
		pfc.WithHTTPClient(core.server.Client()),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: testPollMinDelay, MaxDelay: testPollMaxDelay}),
		pfc.WithRetries(0, testRetryMinWait, testRetryMaxWait),
		pfc.WithMaxRetryAfter(testRetryMaxWait),
	}, clientOpts...)
	if ts.Client, err = hosted.NewClient(ts.APIKey, copts...); err != nil {
		tb.Fatalf("mockserver: hosted client: %v", err)
	}
	return ts
}

// WaitIdle waits until the server has no work running (see
// Hosted.WaitIdle), failing the test if that takes longer than a minute.
func (s *HostedTestServer) WaitIdle() {
	s.core.tb.Helper()
	s.core.waitIdle()
}

// Advance moves the server's fake clock forward by d, one due timer at a
// time, waiting for the work each timer starts (a job completing, a
// webhook retry) before the next, so everything that falls due within d
// happens at its own simulated time. It fails the test unless the server
// was started with a *clock.Fake. A webhook receiver that never answers
// keeps the server busy, so Advance waits for it and fails the test after
// a minute (the attempt's timeout is itself on the clock): to test one,
// advance the clock.Fake directly past HostedOptions.WebhookTimeout.
func (s *HostedTestServer) Advance(d time.Duration) {
	s.core.tb.Helper()
	s.core.advance(d)
}

// Clock returns the server's clock (HostedOptions.Clock, or the real
// clock).
func (s *HostedTestServer) Clock() clock.Clock { return s.core.clock }

// WebhookClock is the webhook.Option that makes a webhook.Verifier check
// timestamps against the server's clock. The mock stamps its deliveries
// with its clock, so a verifier on the real clock rejects the deliveries
// of a server whose fake clock is far from now as too old or too new.
func (s *HostedTestServer) WebhookClock() webhook.Option {
	return webhook.WithClock(s.core.clock.Now)
}

// WebhookVerifier returns a webhook.Verifier for this server's deliveries:
// it accepts the signatures of every API key of the server and checks
// timestamps against the server's clock (WebhookClock); opts are applied
// after those. Use it with webhook.Middleware in a test receiver. It
// fails the test on invalid options.
func (s *HostedTestServer) WebhookVerifier(opts ...webhook.Option) *webhook.Verifier {
	s.core.tb.Helper()
	v, err := webhook.NewVerifier(s.keys, append([]webhook.Option{s.WebhookClock()}, opts...)...)
	if err != nil {
		s.core.tb.Fatalf("mockserver: webhook verifier: %v", err)
	}
	return v
}
