package mockserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/bgsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/pfc"
)

// DefaultBGLicenseKey is the valid licence key of a BGContainer started
// without BGContainerOptions.LicenseKey, and of the standalone binary
// (-license-key).
const DefaultBGLicenseKey = "test-license-key"

// BGContainerOptions configures a BGContainer, the background-removal
// container mock. The zero value is usable: licence key
// DefaultBGLicenseKey, not activated, the real clock, no processing delay,
// a temporary data directory.
type BGContainerOptions struct {
	// LicenseKey is the one valid licence key (GET /Authorize/{key});
	// empty means DefaultBGLicenseKey. It never appears in the mock's
	// answers or logs.
	LicenseKey string
	// Activated starts the container as if /Authorize had been called
	// with LicenseKey. The real container starts unactivated: image
	// endpoints answer 403 not_activated until then.
	Activated bool
	// Organization is the "licensed org"; empty means "PFC Mock
	// Organization".
	Organization string
	// LicenseExpiry is when the licence ends (on Clock); zero means the
	// end of the month a year after the clock's time at creation.
	LicenseExpiry time.Time
	// ModelVersion is what /Status reports; empty means "372.0", the
	// documented release label.
	ModelVersion string
	// Clock drives the processing delay, processing_time and the
	// licence's expiry; nil means clock.Real(). Use clock.NewFake in
	// tests.
	Clock clock.Clock
	// ProcessingDelay keeps each job processing at least this long on
	// Clock after its engine returned (default 0), so that tests can hold
	// jobs in processing. It does not hold a worker, but it holds the job's
	// place in MemoryBudget, as a slower engine would.
	ProcessingDelay time.Duration
	// Engine picks the background-removal engine: BGEngineCPU (empty
	// means it), BGEngineCUDA or BGEngineAuto. Asking for cuda where it
	// cannot run (a build without the cuda tag, no driver or device) fails
	// NewBGContainer with an *EngineUnavailableError; auto falls back to
	// the CPU. The log says which engine runs.
	Engine BGEngine
	// Workers bounds the engines running at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images processed at once, in
	// bytes: what decoding and removing each one's background hold (a
	// 400×300 JPEG about 70 MB; see "Memory" in docs/mockserver.md); 0
	// means DefaultMemoryBudget. Jobs that would exceed it stay queued, in
	// order; an image larger than the whole budget is refused as an
	// invalid file, with a message naming this option.
	MemoryBudget int64
	// MaxFileBytes bounds an uploaded file (413 beyond); 0 means 50 MB.
	MaxFileBytes int64
	// DataDir is where a private working directory is created (and
	// removed by Close); empty means the system temporary directory.
	DataDir string
	// Logger receives structured logs (licence keys redacted); nil
	// discards them.
	Logger *slog.Logger
	// Faults injects failures into the answers (see ParseFaults and the
	// package documentation's "Fault injection"); nil injects none.
	Faults *FaultSpec

	// remover replaces the CPU engine, for the package's tests.
	remover matting.Remover
	// fault, when it returns true for a request, answers it 500
	// internal_error before the container sees it (the documented 500 rows),
	// for the package's tests.
	fault func(*http.Request) bool
}

// BGContainer is the background-removal container mock: an
// http.Handler serving /Authorize/{license_key}, /Status, /SubmitImage,
// /CheckImage/{id}, /DownloadImage/{id} and /RemoveImage/{id}, with the
// reference engine's CPU background removal doing the work. Create it
// with NewBGContainer and Close it when done.
type BGContainer struct {
	svc     *bgsvc.Service
	handler http.Handler
	dir     *privateDir
	key     string
	engine  *bgEngine
}

// NewBGContainer creates a BGContainer and starts its workers.
func NewBGContainer(opts BGContainerOptions) (*BGContainer, error) {
	key := opts.LicenseKey
	if key == "" {
		key = DefaultBGLicenseKey
	}
	budget := opts.MemoryBudget
	if budget == 0 {
		budget = DefaultMemoryBudget
	}
	eng, err := chooseBGEngine(opts.remover, opts.Engine, opts.Logger)
	if err != nil {
		return nil, err
	}
	dir, err := newPrivateDir(opts.DataDir, "pfc-bg-*")
	if err != nil {
		_ = eng.release()
		return nil, err
	}
	svc, err := bgsvc.New(bgsvc.Config{
		LicenseKey:      key,
		Organization:    opts.Organization,
		LicenseExpiry:   opts.LicenseExpiry,
		ModelVersion:    opts.ModelVersion,
		Clock:           opts.Clock,
		ProcessingDelay: opts.ProcessingDelay,
		DataDir:         dir.path,
		Workers:         opts.Workers,
		MemoryBudget:    budget,
		BudgetName:      budgetName("BGContainerOptions"),
		MaxFileBytes:    opts.MaxFileBytes,
		Remover:         eng.remover,
		Logger:          opts.Logger,
	})
	if err != nil {
		_ = dir.close(nil)
		_ = eng.release()
		if errors.Is(err, bgsvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	b := &BGContainer{svc: svc, handler: opts.Faults.wrap(bgFaults, opts.Logger, svc.Handler()), dir: dir, key: key}
	if fault := opts.fault; fault != nil {
		next := b.handler
		b.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if fault(r) {
				httpx.WriteError(w, httpx.Errorf(http.StatusInternalServerError, httpx.CodeInternal, "simulated internal error"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
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
func (b *BGContainer) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.handler.ServeHTTP(w, r) }

// Close cancels running jobs, drops queued ones, interrupts uploads still
// being received (answered 503), stops every timer and removes the data
// directory. Close the http.Server first where possible, so no other
// request is in flight. It is idempotent.
func (b *BGContainer) Close() error {
	return errors.Join(b.dir.close(b.svc.Close), b.engine.release())
}

// Engine returns the background-removal engine that runs: BGEngineCPU or
// BGEngineCUDA (BGContainerOptions.Engine after auto's choice).
func (b *BGContainer) Engine() BGEngine { return b.engine.name }

// WaitIdle blocks until no job is queued or has its engine running: every
// job has ended or waits for its ProcessingDelay on the clock. With a fake
// clock, call it after a request and after each Advance to synchronise
// without sleeping.
func (b *BGContainer) WaitIdle(ctx context.Context) error { return b.svc.WaitIdle(ctx) }

// DataDir returns the container's private working directory.
func (b *BGContainer) DataDir() string { return b.dir.path }

// JobCount returns how many jobs the container holds (not yet removed),
// for tests that check a client cleans up after itself.
func (b *BGContainer) JobCount() int { return b.svc.JobCount() }

// BGContainerTestServer is a BGContainer running on httptest, from
// StartBGContainer.
type BGContainerTestServer struct {
	// URL is the container's base URL (pass it to pfc.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// LicenseKey is the valid licence key.
	LicenseKey string
	// BGContainer is the mock itself.
	BGContainer *BGContainer
	// Client is a bgcontainer client for URL holding LicenseKey. It polls
	// fast (every 10 to 100 ms), retries fast (after 1 to 20 ms, a
	// Retry-After capped at 20 ms) and takes the extra options given to
	// StartBGContainer.
	Client *bgcontainer.Client

	core *testServerCore
}

// StartBGContainer starts a BGContainer with opts (nil: the zero
// BGContainerOptions) on an httptest server, registers its shutdown with
// tb.Cleanup (the httptest server first, then BGContainer.Close), and
// returns its URL, licence key and a ready client. clientOpts are applied
// to the client after the test server's own (base URL, HTTP client, fast
// polling and retries), so they can override them. It fails tb on error.
//
//	srv := mockserver.StartBGContainer(t, nil)
//	res, err := srv.Client.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil, nil) // activates, then removes the job
func StartBGContainer(tb testing.TB, opts *BGContainerOptions, clientOpts ...bgcontainer.Option) *BGContainerTestServer {
	tb.Helper()
	var o BGContainerOptions
	if opts != nil {
		o = *opts
	}
	b, err := NewBGContainer(o)
	if err != nil {
		tb.Fatalf("mockserver: %v", err)
	}
	core := startTestServer(tb, b, o.Clock)
	ts := &BGContainerTestServer{URL: core.server.URL, Server: core.server, LicenseKey: b.key, BGContainer: b, core: core}
	copts := append([]bgcontainer.Option{
		pfc.WithBaseURL(ts.URL),
		pfc.WithHTTPClient(core.server.Client()),
		bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: testPollMinDelay, MaxDelay: testPollMaxDelay}),
		pfc.WithRetries(0, testRetryMinWait, testRetryMaxWait),
		pfc.WithMaxRetryAfter(testRetryMaxWait),
	}, clientOpts...)
	if ts.Client, err = bgcontainer.NewClient(ts.LicenseKey, copts...); err != nil {
		tb.Fatalf("mockserver: bgcontainer client: %v", err)
	}
	return ts
}

// WaitIdle waits until the container has no job queued or running (see
// BGContainer.WaitIdle), failing the test if that takes longer than a
// minute.
func (s *BGContainerTestServer) WaitIdle() {
	s.core.tb.Helper()
	s.core.waitIdle()
}

// Advance moves the container's fake clock forward by d, one due timer at
// a time, waiting for the work each timer starts, so that processing
// delays end at their simulated times. It fails the test unless the
// container was started with a *clock.Fake.
func (s *BGContainerTestServer) Advance(d time.Duration) {
	s.core.tb.Helper()
	s.core.advance(d)
}

// Clock returns the container's clock (BGContainerOptions.Clock, or the
// real clock).
func (s *BGContainerTestServer) Clock() clock.Clock { return s.core.clock }
