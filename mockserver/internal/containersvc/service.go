package containersvc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
)

// Routes of the container.
const (
	UploadPath    = "/pfc"     // PUT: upload
	CorrectPrefix = "/pfc/"    // GET + imageKey: correct
	OutputPrefix  = "/output/" // GET + file name: corrected file
	VersionPath   = "/version" // GET: version document
)

// Service is the state of the correction container mock: the mount
// directories, the licence, uploads and corrected files with their ages on
// the clock, and the TTL sweep. Its methods take plain values (url.Values,
// io.Reader, a key) and return typed results or an *httpx.Error, so the
// HTTP layer stays a thin translation. It is safe for concurrent use.
type Service struct {
	// started counts the jobs started (JobsStarted).
	started atomic.Int64
	cfg     Config
	deps    Deps
	level   slog.Level // of cfg.LogLevel
	mounts  Mounts
	log     *slog.Logger
	clock   clock.Clock
	engine  *engine.Engine
	queue   *jobqueue.Queue // admits corrections by Workers and MemoryBudget
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc

	// remove and rename are os.Remove and os.Rename; tests replace them to
	// make deletion or the final rename fail.
	remove func(string) error
	rename func(oldpath, newpath string) error
	// createTemp is osCreateTemp; tests replace it with files whose Write
	// or Close fails.
	createTemp func(dir, pattern string) (tempFile, error)

	// act tracks the requests being served and the sweeps (WaitIdle,
	// Close) and runs the sweep timer.
	act *activity.Tracker

	mu   sync.Mutex
	seen map[string]seenFile // dir-relative path ("input/x") -> when its age began, and which file it was
}

// New prepares the mount directories under cfg.Root, logs the settings in
// effect (and the PFC_LOG_LEVEL fallback, if any) and starts the TTL sweep.
// cfg.Unlicensed and cfg.Faults are pfcmock.New's to apply.
func New(cfg Config, deps Deps) (*Service, error) {
	cfg.own()
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	mounts, _, err := PrepareRoot(cfg.Root)
	if err != nil {
		return nil, err
	}
	eng := deps.Engine
	if eng == nil {
		if eng, err = engine.New(engine.Options{}); err != nil {
			return nil, err
		}
	}
	level, badLevel := parseLevel(cfg.LogLevel)
	log := newLogger(cfg.LogWriter, level, cfg.Clock.Now)
	queue, err := jobqueue.New(jobqueue.Config{Workers: cfg.Workers, Budget: cfg.MemoryBudget, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{
		cfg: cfg, deps: deps, level: level, mounts: mounts, log: log, clock: cfg.Clock, engine: eng,
		queue: queue, ctx: ctx, cancel: cancel,
		remove: os.Remove, rename: os.Rename, createTemp: osCreateTemp, seen: map[string]seenFile{}, act: activity.New(cfg.Clock),
	}
	if badLevel != "" {
		s.logID(slog.LevelWarn, MsgUnknownLogLevel, "value", badLevel, "using", "info")
	}
	s.logID(slog.LevelInfo, MsgStarted, "root", mounts.Root, "settings", s.Settings())
	s.act.AfterFunc(SweepInterval, s.sweepTick)
	return s, nil
}

// Close stops the TTL sweep, cancels the corrections and uploads running
// (an upload's body reads are cut off by the handler) and waits for every
// request and sweep in flight to end. Files stay in the mount directories.
// Idempotent.
func (s *Service) Close() {
	s.cancel()
	s.queue.Close()
	s.act.Close()
}

// WaitIdle blocks until no request is being served and no sweep runs, or
// ctx is done. The pending sweep timer does not count: with a fake clock,
// WaitIdle returns when everything left waits for the clock.
func (s *Service) WaitIdle(ctx context.Context) error { return s.act.WaitIdle(ctx) }

// Mounts returns the mount directories.
func (s *Service) Mounts() Mounts { return s.mounts }

// SiteURL returns the base of corrected_url (PFC_SITE_URL, no trailing
// slash).
func (s *Service) SiteURL() string { return s.cfg.SiteURL }

// LicenseError returns nil when sdk_license holds a valid licence now, else
// why not. It is checked again on every correction, so a licence dropped
// in later takes effect at once.
func (s *Service) LicenseError() error { return checkLicense(s.mounts.License, s.clock.Now()) }

// newName returns 16 random bytes in hex.
func newName() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms.
		panic(fmt.Sprintf("containersvc: crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
