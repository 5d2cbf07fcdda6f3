package hostedsvc

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
	"github.com/pfcsdk/pfc-go/mockserver/internal/webhooksend"
)

// Service is the state and the job runner of the hosted API mock. The
// HTTP layer (Handler) is a thin shell over its methods. It is safe for
// concurrent use.
type Service struct {
	// started counts the jobs started (JobsStarted).
	started atomic.Int64
	cfg     settings
	log     *slog.Logger
	tracker *activity.Tracker
	store   *blobstore.Store
	signer  *blobstore.Signer
	webhook *webhooksend.Sender
	ctx     context.Context // cancelled by Close: stops processors
	cancel  context.CancelFunc

	mu      sync.Mutex
	uploads map[string]*upload
	jobs    map[string]*job
	cache   map[string]*cacheEntry

	presets presetIndex // under locks of its own, never mu's (presets.go)

	queue *jobqueue.Queue

	closeOnce sync.Once
}

// New starts a Service: it opens deps.WorkDir and starts the workers. Of
// cfg it applies neither Processor (deps.Processor runs), BGEngine,
// Faults, RateLimit nor DataDir (hostedmock.New does), and refuses
// APIKeys nil.
func New(config Config, deps Deps) (*Service, error) {
	cfg := settings{Config: config, Deps: deps}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	store, err := blobstore.Open(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	signer, err := blobstore.NewSigner(cfg.SigningKey)
	if err != nil {
		return nil, err
	}
	tracker := activity.New(cfg.Clock)
	sender, err := webhooksend.New(webhooksend.Config{
		Tracker:        tracker,
		Sign:           cfg.WebhookSigner,
		Client:         cfg.WebhookClient,
		RootCAs:        cfg.WebhookCAs,
		Schedule:       cfg.WebhookSchedule,
		AttemptTimeout: cfg.WebhookTimeout,
		Logger:         cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	queue, err := jobqueue.New(jobqueue.Config{Workers: cfg.Workers, Budget: cfg.MemoryBudget, Tracker: tracker, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{queue: queue,
		cfg: cfg, log: cfg.Logger, tracker: tracker, store: store, signer: signer, webhook: sender,
		ctx: ctx, cancel: cancel,
		uploads: map[string]*upload{}, jobs: map[string]*job{}, cache: map[string]*cacheEntry{},
	}
	return s, nil
}

// Close stops the workers, cancels running processors and webhook
// attempts, aborts uploads still being received (their PUT answers 503),
// stops every timer and waits for all of it. Files stay in the data
// directory (its owner removes it). Close is idempotent.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		s.cancel() // also aborts the bodies being received (abortBodyOnClose)
		s.webhook.Close()
		s.queue.Close() // cancels the running jobs, drops the queued ones, waits
		s.tracker.Close()
		s.webhook.CloseIdleConnections()
	})
}

// closing reports whether Close has begun; the handler then answers every
// request 503 unavailable.
func (s *Service) closing() bool { return s.ctx.Err() != nil }

// WaitIdle blocks until no work is running: every queued job has been
// processed (it may still wait for the ProcessingDelay on the clock),
// every webhook attempt has finished or is waiting for its retry time, and
// no upload is being received.
// With a fake clock this is the point at which advancing the clock is
// deterministic.
func (s *Service) WaitIdle(ctx context.Context) error { return s.tracker.WaitIdle(ctx) }

// Authenticate returns the account of a valid API key.
func (s *Service) Authenticate(key string) (string, bool) {
	for _, k := range s.cfg.APIKeys {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			return k, true
		}
	}
	return "", false
}

func (s *Service) now() time.Time { return s.cfg.Clock.Now() }

// newJobID returns an id shaped like the service's: 24 hex digits.
func newJobID() string { return httpx.NewID(12) }

// enqueue queues j for the workers, at cost bytes of the memory budget;
// false once Close has begun.
func (s *Service) enqueue(j *job, cost int64) bool {
	_, err := s.queue.Submit(cost, func(ctx context.Context) { s.runJob(ctx, j) })
	return err == nil
}
