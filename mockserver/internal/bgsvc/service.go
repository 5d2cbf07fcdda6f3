package bgsvc

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
)

// Service is the state and the job runner of the background-removal
// container mock. The HTTP layer is a thin shell over its methods. It is
// safe for concurrent use.
type Service struct {
	cfg      Config
	log      *slog.Logger
	tracker  *activity.Tracker
	store    *blobstore.Store
	detector *faces.Detector
	ctx      context.Context // cancelled by Close: stops the engines
	cancel   context.CancelFunc

	mu        sync.Mutex
	activated bool
	jobs      map[string]*job
	queue     []*job // queued jobs in submission order
	running   int    // jobs holding a worker

	closeOnce sync.Once
}

// New starts a Service on cfg.DataDir.
func New(cfg Config) (*Service, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	store, err := blobstore.Open(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	det, err := faces.NewDetector()
	if err != nil {
		return nil, fmt.Errorf("bgsvc: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{
		cfg: cfg, log: cfg.Logger, tracker: activity.New(cfg.Clock), store: store, detector: det,
		ctx: ctx, cancel: cancel, jobs: map[string]*job{},
	}, nil
}

// Close cancels running engines, drops queued jobs, stops every timer and
// waits for all of it. Files stay in the data directory (its owner removes
// it). Close is idempotent.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		s.cancel()
		s.mu.Lock()
		s.queue = nil
		s.mu.Unlock()
		s.tracker.Close()
	})
}

// WaitIdle blocks until no engine is running: every job is queued behind a
// worker held by a job waiting for its ProcessingDelay, or ended. With a
// fake clock this is the point at which advancing the clock is
// deterministic.
func (s *Service) WaitIdle(ctx context.Context) error { return s.tracker.WaitIdle(ctx) }

func (s *Service) now() time.Time { return s.cfg.Clock.Now() }

// newUUID returns a random (version 4) UUID in canonical lower-case form.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms.
		panic(fmt.Sprintf("bgsvc: crypto/rand: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// validUUID reports whether s is a canonical 8-4-4-4-12 hex UUID (any
// case).
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// enqueue queues j and starts what the workers allow. It is the one place
// that knows how jobs are scheduled. Called with s.mu held; false when the
// service is closing.
func (s *Service) enqueue(j *job) bool {
	if s.ctx.Err() != nil {
		return false
	}
	s.queue = append(s.queue, j)
	s.dispatchLocked()
	return true
}

// dispatchLocked starts queued jobs while workers are free. Called with
// s.mu held.
func (s *Service) dispatchLocked() {
	for s.running < s.cfg.Workers && len(s.queue) > 0 {
		j := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		if s.jobs[j.id] != j {
			continue // removed while queued
		}
		s.running++
		j.slot, j.engineRunning = true, true
		j.status, j.startedAt = StatusProcessing, s.now()
		if !s.tracker.Go(func() { s.run(j) }) {
			s.running--
			j.slot, j.engineRunning = false, false
			j.status = StatusQueued
			return
		}
	}
}

// releaseLocked gives j's worker back and starts the next job. Called with
// s.mu held.
func (s *Service) releaseLocked(j *job) {
	if !j.slot {
		return
	}
	j.slot = false
	s.running--
	s.dispatchLocked()
}
