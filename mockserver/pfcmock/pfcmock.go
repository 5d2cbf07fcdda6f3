package pfcmock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/containersvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/reqlimit"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testsrv"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Options configures a Server, the mock of the locally deployed
// correction container; the zero value is usable: a private licensed
// mount tree, the real clock, logs discarded. Its fields: Root string and
// Unlicensed bool (the mount tree, and whether a tree the mock creates
// gets a licence); the container's variables SiteURL (PFC_SITE_URL),
// LogLevel, ImageTTL, AVX, UseFastFAE, SkipMode, SkipEXIFSoftware,
// PreserveInputFileName, EnableComposite, UseAIServer (PFC_*, same
// defaults and effects); LogWriter io.Writer; Clock clock.Clock;
// MaxUploadBytes int64; Workers int; MemoryBudget int64 (0:
// mockserver.DefaultMemoryBudget); Faults *mockserver.FaultSpec; RateLimit float64 (requests per
// second per client address, 429 above; 0: none). See
// docs/mockserver.md for each.
type Options = containersvc.Config

// Server is the correction container mock: an http.Handler serving
// PUT /pfc, GET /pfc/{imageKey}, GET /output/{name} and GET /version over
// a mount tree. Create it with New and Close it when done.
type Server struct {
	svc     *containersvc.Service
	handler http.Handler
	tmp     string // private tree to remove, if any
	once    sync.Once
	err     error
}

// New prepares the mount tree (see Options.Root)
// and starts the container mock's TTL sweep.
func New(opts Options) (*Server, error) {
	if err := reqlimit.Check("RateLimit", opts.RateLimit); err != nil {
		return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
	}
	root, tmp := opts.Root, ""
	if root == "" {
		dir, err := os.MkdirTemp("", "pfc-container-*")
		if err != nil {
			return nil, fmt.Errorf("mockserver: container root: %w", err)
		}
		root, tmp = dir, dir
	}
	fail := func(err error) (*Server, error) {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
		if errors.Is(err, containersvc.ErrInvalidConfig) {
			return nil, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
		}
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	mounts, created, err := containersvc.PrepareRoot(root)
	if err != nil {
		return fail(err)
	}
	if (created || tmp != "") && !opts.Unlicensed {
		if err := containersvc.WriteLicense(mounts.License, containersvc.NewLicense("pfc-go mockserver", time.Time{})); err != nil {
			return fail(err)
		}
	}
	cfg := opts
	cfg.Root = root
	svc, err := containersvc.New(cfg, containersvc.Deps{BudgetName: testsrv.BudgetName("pfcmock.Options")})
	if err != nil {
		return fail(err)
	}
	h := reqlimit.Wrap(opts.RateLimit, reqlimit.Now(opts.Clock), reqlimit.ClientAddress, "client address",
		opts.Faults.Wrap("container", svc.FaultLogger(), svc.Handler()))
	return &Server{svc: svc, handler: h, tmp: tmp}, nil
}

// ServeHTTP serves the container's API.
func (c *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.handler.ServeHTTP(w, r) }

// Close stops the sweep, cancels running corrections and removes the
// mount tree if the mock created it privately (Root empty). Close the
// http.Server first where possible. Idempotent.
func (c *Server) Close() error {
	c.once.Do(func() {
		c.svc.Close()
		if c.tmp != "" {
			if err := os.RemoveAll(c.tmp); err != nil {
				c.err = fmt.Errorf("mockserver: removing the container root: %w", err)
			}
		}
	})
	return c.err
}

// WaitIdle blocks until no request is being served and no sweep runs, or
// ctx is done. The pending sweep timer does not count.
func (c *Server) WaitIdle(ctx context.Context) error { return c.svc.WaitIdle(ctx) }

// SiteURL returns the base of the corrected URLs (PFC_SITE_URL).
func (c *Server) SiteURL() string { return c.svc.SiteURL() }

// Root returns the directory holding the mount points.
func (c *Server) Root() string { return c.svc.Mounts().Root }

// InputDir returns the mounted /input directory (direct file mode: copy a
// file here, atomically, then correct it by its name).
func (c *Server) InputDir() string { return c.svc.Mounts().Input }

// OutputDir returns the mounted /output directory.
func (c *Server) OutputDir() string { return c.svc.Mounts().Output }

// PresetsDir returns the mounted /presets directory: preset files, ICC
// profiles and exported AI preset groups (one directory per group).
func (c *Server) PresetsDir() string { return c.svc.Mounts().Presets }

// LicenseDir returns the mounted /sdk_license directory.
func (c *Server) LicenseDir() string { return c.svc.Mounts().License }

// Sweep runs the TTL sweep now (it also runs every 10 minutes on the
// clock) and returns the files it deleted, as "input/name" or
// "output/name".
func (c *Server) Sweep() []string { return c.svc.Sweep() }

// JobsStarted returns how many jobs the container started since New: its
// PUT /pfc answers that stored an image (an imageKey returned).
func (c *Server) JobsStarted() int { return c.svc.JobsStarted() }

// OptionsFromEnv reads the container's PFC_* environment
// variables through getenv (os.Getenv in the standalone binary) into
// options, with the container's defaults for unset ones. A malformed value
// (other than PFC_LOG_LEVEL, which falls back to info with a warning) is
// an error naming the variable. Root, LogWriter, Clock and the limits are
// left for the caller.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	c, err := containersvc.ConfigFromEnv(getenv)
	if err != nil {
		return Options{}, fmt.Errorf("%w: %w", mockserver.ErrInvalidOptions, err)
	}
	return c, nil
}

// TestServer is a Server served by an httptest server,
// with a ready client. Start returns it.
type TestServer struct {
	// URL is the container's base URL (pass it to pfc.WithBaseURL).
	URL string
	// Server is the underlying httptest server.
	Server *httptest.Server
	// Mock is the mock itself: its mount directories (InputDir,
	// OutputDir, PresetsDir, LicenseDir) and Sweep.
	Mock *Server
	// Client is a pfccontainer client for URL that retries fast (after 1
	// to 20 ms, a Retry-After capped at 20 ms), with the extra options
	// given to Start.
	Client *pfccontainer.Client

	core *testsrv.Core
}

// Start starts a Server with opts (nil: the zero
// Options, a private licensed mount tree) on an httptest
// server, registers its shutdown with tb.Cleanup and returns its URL and a
// ready client; clientOpts override the test server's own options. It
// fails tb on error. An empty opts.SiteURL becomes the test server's URL,
// so corrected_url downloads as it is; set SiteURL (e.g. "http://localhost",
// the container's default) to test a client that must rebase it
// (pfccontainer.Client.RebaseCorrectedURLs).
func Start(tb testing.TB, opts *Options, clientOpts ...pfccontainer.Option) *TestServer {
	tb.Helper()
	o := testsrv.Value(opts)
	// The site URL must be known before the container exists, and the
	// server's URL only once it listens: serve through a forwarder.
	fwd := &forwardBackend{}
	core := testsrv.Start(tb, fwd, o.Clock)
	if o.SiteURL == "" {
		o.SiteURL = core.Server.URL
	}
	c, err := New(o)
	if err != nil {
		tb.Fatalf("mockserver: %v", err)
	}
	fwd.c.Store(c)
	ts := &TestServer{URL: core.Server.URL, Server: core.Server, Mock: c, core: core}
	copts := testsrv.ClientOptions(core, ts.URL, clientOpts)
	if ts.Client, err = pfccontainer.NewClient(copts...); err != nil {
		tb.Fatalf("mockserver: pfccontainer client: %v", err)
	}
	return ts
}

// WaitIdle waits until no request is served and no sweep runs; it fails
// the test after a minute.
func (s *TestServer) WaitIdle() { s.core.TB.Helper(); s.core.WaitIdle() }

// Advance moves the fake clock (Options.Clock must be a
// *clock.Fake) forward by d, running the TTL sweeps that fall due one at
// a time.
func (s *TestServer) Advance(d time.Duration) { s.core.TB.Helper(); s.core.Advance(d) }

// Clock returns the container's clock.
func (s *TestServer) Clock() clock.Clock { return s.core.Clock }

// forwardBackend serves the Server stored in c once it exists
// (503 before).
type forwardBackend struct{ c atomic.Pointer[Server] }

func (f *forwardBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c := f.c.Load(); c != nil {
		c.ServeHTTP(w, r)
		return
	}
	http.Error(w, "starting", http.StatusServiceUnavailable)
}

func (f *forwardBackend) Close() error {
	if c := f.c.Load(); c != nil {
		return c.Close()
	}
	return nil
}

func (f *forwardBackend) WaitIdle(ctx context.Context) error {
	if c := f.c.Load(); c != nil {
		return c.WaitIdle(ctx)
	}
	return nil
}
