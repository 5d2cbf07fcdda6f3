package mockserver

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/webhook"
)

// DefaultAPIKey is the API key of a Hosted server started without
// HostedOptions.APIKeys, and of the standalone binary.
const DefaultAPIKey = "test-api-key"

// Processor corrects one image for a hosted job; see hostedsvc.Processor.
// The mock calls it only for inputs that passed its own checks (format,
// file type, pixel limits, preset, size for background removal), with
// every /pfc default and priority rule already applied. An error matching
// *RejectError (or the engine's imageio.ErrRejected) makes the job
// REJECTED; any other error makes it FAILED.
type Processor = hostedsvc.Processor

// ProcessorFunc adapts a function to Processor.
type ProcessorFunc = hostedsvc.ProcessorFunc

// JobRequest is the resolved /pfc request handed to a Processor.
type JobRequest = hostedsvc.JobRequest

// JobResult is what a Processor reports about the corrected image.
type JobResult = hostedsvc.JobResult

// ResizeRequest is the effective resize of a JobRequest.
type ResizeRequest = hostedsvc.ResizeRequest

// AutoCropRequest holds the auto-crop settings of a JobRequest.
type AutoCropRequest = hostedsvc.AutoCropRequest

// BackgroundRequest is the effective background replacement of a
// JobRequest.
type BackgroundRequest = hostedsvc.BackgroundRequest

// Background modes of BackgroundRequest.Mode, by the API's priority.
const (
	BackgroundGenerative  = hostedsvc.BackgroundGenerative
	BackgroundImage       = hostedsvc.BackgroundImage
	BackgroundColor       = hostedsvc.BackgroundColor
	BackgroundTransparent = hostedsvc.BackgroundTransparent
)

// RejectError, returned by a Processor, makes the job REJECTED.
type RejectError = hostedsvc.RejectError

// ErrorBody is the JSON body of every error answer of the hosted mock.
type ErrorBody = httpx.Error

// PresetRecord is a preset as the presets endpoints return it.
type PresetRecord = hostedsvc.PresetRecord

// PresetList is the body of GET /presets.
type PresetList = hostedsvc.PresetList

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
	// UploadURLTTL is how long pre-signed upload URLs are valid (default
	// 1 h).
	UploadURLTTL time.Duration
	// WebhookClient sends webhooks; use an httptest.NewTLSServer's
	// Client() to reach a test receiver. nil builds a client trusting
	// WebhookCAs.
	WebhookClient *http.Client
	// WebhookCAs are the CAs trusted for webhook targets when
	// WebhookClient is nil; nil means the system roots.
	WebhookCAs *x509.CertPool
	// WebhookTimeout bounds each delivery attempt on Clock (default 30 s).
	WebhookTimeout time.Duration
	// DataDir is where a private working directory is created (and removed
	// by Close); empty means the system temporary directory.
	DataDir string
	// BaseURL, if set, replaces scheme://host in the URLs the server hands
	// out (statusEndpoint, uploadUrl, correctedFile), for a server behind a
	// proxy. It must not include /v2.
	BaseURL string
	// Processor corrects images; nil means the reference engine
	// (EngineProcessor over engine.New). Videos never reach it.
	Processor Processor
	// Workers bounds the jobs processed at once; 0 means GOMAXPROCS.
	Workers int
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
}

// Hosted is the hosted API v2 mock: an http.Handler serving /v2/... (API
// key required), /storage/... (pre-signed uploads) and /files/... (public
// results). Create it with NewHosted and Close it when done.
type Hosted struct {
	svc     *hostedsvc.Service
	handler http.Handler
	dir     string
	once    sync.Once
	err     error
}

// ErrInvalidOptions is wrapped by NewHosted's errors for unusable options.
var ErrInvalidOptions = errors.New("mockserver: invalid options")

// NewHosted creates a Hosted server and starts its workers.
func NewHosted(opts HostedOptions) (*Hosted, error) {
	keys := opts.APIKeys
	if keys == nil {
		keys = []string{DefaultAPIKey}
	}
	proc := opts.Processor
	if proc == nil {
		eng, err := engine.New(engine.Options{})
		if err != nil {
			return nil, fmt.Errorf("mockserver: %w", err)
		}
		proc = EngineProcessor(eng)
	}
	dir, err := os.MkdirTemp(opts.DataDir, "pfc-hosted-*")
	if err != nil {
		return nil, fmt.Errorf("mockserver: data directory: %w", err)
	}
	svc, err := hostedsvc.New(hostedsvc.Config{
		APIKeys:         keys,
		Clock:           opts.Clock,
		ProcessingDelay: opts.ProcessingDelay,
		Retention:       opts.Retention,
		UploadURLTTL:    opts.UploadURLTTL,
		DataDir:         dir,
		BaseURL:         opts.BaseURL,
		Processor:       proc,
		Workers:         opts.Workers,
		WebhookClient:   opts.WebhookClient,
		WebhookCAs:      opts.WebhookCAs,
		WebhookSigner:   webhook.Sign,
		WebhookTimeout:  opts.WebhookTimeout,
		Logger:          opts.Logger,
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		if errors.Is(err, hostedsvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	return &Hosted{svc: svc, handler: svc.Handler(), dir: dir}, nil
}

// ServeHTTP serves the hosted API.
func (h *Hosted) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Close stops the workers, cancels running jobs and webhook deliveries,
// interrupts uploads still being received (answered 503) and waits for
// them, stops every timer, and removes the data directory. Close the
// http.Server first where possible, so no other request is in flight. It
// is idempotent.
func (h *Hosted) Close() error {
	h.once.Do(func() {
		h.svc.Close()
		if err := os.RemoveAll(h.dir); err != nil {
			h.err = fmt.Errorf("mockserver: removing the data directory: %w", err)
		}
	})
	return h.err
}

// WaitIdle blocks until nothing is running: every queued job has been
// processed (it may still wait for ProcessingDelay on the clock), every
// webhook attempt has finished or waits for its retry time, and no upload
// is being received. With a fake
// clock, call it after a request and after each Advance to synchronise
// without sleeping.
func (h *Hosted) WaitIdle(ctx context.Context) error { return h.svc.WaitIdle(ctx) }

// DataDir returns the server's private working directory.
func (h *Hosted) DataDir() string { return h.dir }

// HostedTestServer is a Hosted server running on httptest, from
// StartHosted.
type HostedTestServer struct {
	// URL is the API base URL, ending in /v2 (pass it to
	// hosted.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// APIKey is the first valid API key.
	APIKey string
	// Hosted is the mock itself.
	Hosted *Hosted
	// Client is a hosted API client for URL and APIKey.
	Client *hosted.Client

	tb    testing.TB
	clock clock.Clock
}

// StartHosted starts a Hosted server (with opts, at most one) on an
// httptest server, registers its shutdown with tb.Cleanup, and returns its
// base URL, API key and a ready client. It fails tb on error.
func StartHosted(tb testing.TB, opts ...HostedOptions) *HostedTestServer {
	tb.Helper()
	if len(opts) > 1 {
		tb.Fatalf("mockserver: StartHosted takes at most one HostedOptions, got %d", len(opts))
	}
	var o HostedOptions
	if len(opts) == 1 {
		o = opts[0]
	}
	h, err := NewHosted(o)
	if err != nil {
		tb.Fatalf("mockserver: %v", err)
	}
	tb.Cleanup(func() {
		if err := h.Close(); err != nil {
			tb.Errorf("mockserver: %v", err)
		}
	})
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close) // runs first: no request is in flight when h closes
	key := DefaultAPIKey
	if len(o.APIKeys) > 0 {
		key = o.APIKeys[0]
	}
	ts := &HostedTestServer{URL: srv.URL + "/v2", Server: srv, APIKey: key, Hosted: h, tb: tb, clock: o.Clock}
	c, err := hosted.NewClient(key, hosted.WithBaseURL(ts.URL), hosted.WithHTTPClient(srv.Client()))
	if err != nil {
		tb.Fatalf("mockserver: hosted client: %v", err)
	}
	ts.Client = c
	return ts
}

// WaitIdle waits until the server has no work running (see
// Hosted.WaitIdle), failing the test if that takes longer than a minute.
func (s *HostedTestServer) WaitIdle() {
	s.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Hosted.WaitIdle(ctx); err != nil {
		s.tb.Fatalf("mockserver: server did not become idle: %v", err)
	}
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
	s.tb.Helper()
	fake, ok := s.clock.(*clock.Fake)
	if !ok {
		s.tb.Fatalf("mockserver: Advance needs HostedOptions.Clock to be a *clock.Fake")
		return
	}
	s.WaitIdle()
	end := fake.Now().Add(d)
	for {
		next, ok := fake.NextDeadline()
		if !ok || next.After(end) {
			break
		}
		fake.AdvanceTo(next)
		s.WaitIdle()
	}
	fake.AdvanceTo(end)
	s.WaitIdle()
}
