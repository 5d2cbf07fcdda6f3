package bgsvc

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
)

// Service is the state and the job runner of the background-removal
// container mock. The HTTP layer is a thin shell over its methods. It is
// safe for concurrent use.
type Service struct {
	// started counts the jobs started (JobsStarted).
	started  atomic.Int64
	cfg      settings
	log      *slog.Logger
	tracker  *activity.Tracker
	store    *blobstore.Store
	detector *faces.Detector
	queue    *jobqueue.Queue
	// closing is cancelled by Close: uploads being received are cut off.
	closing context.Context
	cancel  context.CancelFunc

	mu        sync.Mutex
	activated bool
	jobs      map[string]*job

	closeOnce sync.Once
}

// New starts a Service on deps.WorkDir. Of cfg it applies neither
// Activated, Engine, Faults, RateLimit nor DataDir (bgmock.New does), and
// takes MemoryBudget 0 as no bound beyond Workers.
func New(config Config, deps Deps) (*Service, error) {
	cfg := settings{Config: config, Deps: deps}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	store, err := blobstore.Open(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	det, err := faces.NewDetector()
	if err != nil {
		return nil, fmt.Errorf("bgsvc: %w", err)
	}
	log := redactingLogger(cfg.Logger, cfg.LicenseKey)
	tracker := activity.New(cfg.Clock)
	queue, err := jobqueue.New(jobqueue.Config{Workers: cfg.Workers, Budget: cfg.MemoryBudget, Tracker: tracker, Logger: log})
	if err != nil {
		tracker.Close()
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{
		cfg: cfg, log: log, tracker: tracker, store: store, detector: det, queue: queue,
		closing: ctx, cancel: cancel, jobs: map[string]*job{},
	}, nil
}

// Close cancels running engines, drops queued jobs, stops every timer and
// waits for all of it. Files stay in the data directory (its owner removes
// it), except the results still waiting out their ProcessingDelay, which
// were never stored. Close is idempotent.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		s.cancel()
		s.queue.Close() // cancels the running jobs, drops the queued ones, waits
		s.tracker.Close()
		// The stopped delays will not store their results: discard them.
		s.mu.Lock()
		for _, j := range s.jobs {
			discard(j.pending)
			j.pending = ""
		}
		s.mu.Unlock()
	})
}

// Closing is done once Close has begun; handlers cut off the uploads they
// are receiving with it (httpx.AbortBodyOnClose).
func (s *Service) Closing() context.Context { return s.closing }

// WaitIdle blocks until no job is queued or has its engine running: every
// job has ended or waits for its ProcessingDelay on the clock. With a fake
// clock this is the point at which advancing the clock is deterministic.
func (s *Service) WaitIdle(ctx context.Context) error { return s.tracker.WaitIdle(ctx) }

func (s *Service) now() time.Time { return s.cfg.Clock.Now() }

// validUUID reports whether s is a canonical 8-4-4-4-12 hex UUID (any
// case).
func validUUID(s string) bool { return httpx.IsUUID(s) }

// enqueue hands j to the shared job queue at cost pixels of its budget.
// Called with s.mu held (the queue never calls back into the service while
// holding its own lock); false once Close has begun.
func (s *Service) enqueueLocked(j *job, cost int64) bool {
	qj, err := s.queue.Submit(cost, func(ctx context.Context) { s.run(ctx, j) })
	if err != nil {
		return false
	}
	j.qjob = qj
	return true
}

// JobCount returns how many jobs the service holds (not yet removed).
func (s *Service) JobCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.jobs)
}
