package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

// ErrClosed is returned by Submit once Close has begun.
var ErrClosed = errors.New("jobqueue: closed")

// ErrInvalidConfig is wrapped by New's errors.
var ErrInvalidConfig = errors.New("jobqueue: invalid config")

// Config configures a Queue.
type Config struct {
	// Workers is the number of jobs run at once; at least 1.
	Workers int
	// Budget bounds the summed cost of the running jobs (the mocks count
	// bytes of memory); 0 means no budget (only Workers bounds them). Must
	// not be negative.
	Budget int64
	// Tracker, if set, counts every job from Submit to its end as running
	// work, so that its WaitIdle waits for queued jobs too.
	Tracker *activity.Tracker
	// Logger receives a message when a job's function panics (the worker
	// survives); nil discards it.
	Logger *slog.Logger
}

// State is where a job is.
type State int

// The states of a job.
const (
	Queued     State = iota + 1 // waiting for a worker or for budget
	Processing                  // its function runs
	Done                        // its function returned
	Cancelled                   // removed from the queue before it ran (Cancel, Close)
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Queued:
		return "queued"
	case Processing:
		return "processing"
	case Done:
		return "done"
	case Cancelled:
		return "cancelled"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Queue runs submitted jobs on a bounded pool of workers. It is safe for
// concurrent use.
type Queue struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context // cancelled by Close: every running job's parent
	cancel context.CancelFunc

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*Job
	inUse   int64 // summed cost of the running jobs
	running int
	closed  bool
	workers sync.WaitGroup
	once    sync.Once
}

// Job is a submitted job.
type Job struct {
	q      *Queue
	cost   int64
	run    func(ctx context.Context)
	state  State
	cancel context.CancelFunc // set while Processing
	done   chan struct{}
	// held: HoldBudget was called and its release not yet; returned: the
	// worker is done with run. The cost leaves inUse when both end.
	held, returned bool
	// parked: queued behind budget that only holds keep (no job runs), so
	// it waits for a timer: its Tracker count is given back meanwhile.
	parked bool
}

// New starts a Queue and its workers.
func New(cfg Config) (*Queue, error) {
	if cfg.Workers < 1 {
		return nil, fmt.Errorf("%w: Workers must be at least 1, got %d", ErrInvalidConfig, cfg.Workers)
	}
	if cfg.Budget < 0 {
		return nil, fmt.Errorf("%w: Budget must not be negative, got %d", ErrInvalidConfig, cfg.Budget)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{cfg: cfg, log: log, ctx: ctx, cancel: cancel}
	q.cond = sync.NewCond(&q.mu)
	q.workers.Add(cfg.Workers)
	for range cfg.Workers {
		go q.worker()
	}
	return q, nil
}

// Submit queues run, declaring its cost in the budget's unit (0 or less:
// free). run
// gets a context cancelled by Job.Cancel and by Close; it should return
// promptly then. A panic in run is logged and ends the job. Submit fails
// with ErrClosed once Close has begun (or the Tracker is closed).
func (q *Queue) Submit(cost int64, run func(ctx context.Context)) (*Job, error) {
	if cost < 0 {
		cost = 0
	}
	if q.cfg.Tracker != nil && !q.cfg.Tracker.Begin() {
		return nil, ErrClosed
	}
	j := &Job{q: q, cost: cost, run: run, state: Queued, done: make(chan struct{})}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		q.end()
		return nil, ErrClosed
	}
	q.queue = append(q.queue, j)
	q.reparkLocked()
	q.cond.Broadcast()
	q.mu.Unlock()
	return j, nil
}

// end matches the tracker's Begin of one job.
func (q *Queue) end() {
	if q.cfg.Tracker != nil {
		q.cfg.Tracker.End()
	}
}

// endJob matches the tracker's Begin of j, unless j's count was given
// back while it was parked.
func (q *Queue) endJob(j *Job) {
	q.mu.Lock()
	parked := j.parked
	q.mu.Unlock()
	if !parked {
		q.end()
	}
}

// reparkLocked keeps the Tracker's count right when budget held past a
// job's run (HoldBudget: a timer) is all that keeps the queued jobs
// waiting: no job runs, so they wait for that timer, like the timer
// itself, and are not running work (WaitIdle returns, and a fake clock can
// be advanced to release the budget). Otherwise every queued job counts.
// Called with q.mu held.
func (q *Queue) reparkLocked() {
	if q.cfg.Tracker == nil {
		return
	}
	park := len(q.queue) > 0 && q.running == 0 && q.inUse > 0 && !q.admissible()
	for _, j := range q.queue {
		switch {
		case park && !j.parked:
			j.parked = true
			q.cfg.Tracker.End()
		case !park && j.parked && q.cfg.Tracker.Begin():
			j.parked = false
		}
	}
}

// admissible reports whether the head job may start now. Called with
// q.mu held and a non-empty queue.
func (q *Queue) admissible() bool {
	if q.cfg.Budget == 0 || (q.running == 0 && q.inUse == 0) {
		return true // no budget, or nothing runs or holds: even an oversize job goes
	}
	// Not inUse+cost <= Budget: a cost near MaxInt64 would wrap the sum.
	return q.queue[0].cost <= q.cfg.Budget-q.inUse
}

func (q *Queue) worker() {
	defer q.workers.Done()
	for {
		q.mu.Lock()
		for !q.closed && (len(q.queue) == 0 || !q.admissible()) {
			q.cond.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		j := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		ctx, cancel := context.WithCancel(q.ctx)
		j.state, j.cancel = Processing, cancel
		q.inUse += j.cost
		q.running++
		// The next job may fit beside this one: let another worker look.
		q.cond.Broadcast()
		q.mu.Unlock()

		q.runJob(ctx, j)
		cancel()

		q.mu.Lock()
		j.state, j.cancel = Done, nil
		j.returned = true
		if !j.held {
			q.inUse -= j.cost
		}
		q.running--
		q.reparkLocked()
		q.cond.Broadcast()
		q.mu.Unlock()
		close(j.done)
		q.endJob(j)
	}
}

// HoldBudget, called by a job's run, keeps the job's cost in the
// budget after run returns, until release is called (once; later calls
// do nothing): the background-removal mock's processing delay holds its
// place in the budget as a slower engine would, while the worker takes
// the next job. Jobs waiting for that budget stay queued, so with a fake
// clock the delay's timer must fire before they count as idle.
func (j *Job) HoldBudget() (release func()) {
	q := j.q
	q.mu.Lock()
	j.held = true
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if !j.held {
			return
		}
		j.held = false
		if j.returned {
			q.inUse -= j.cost
			q.reparkLocked()
			q.cond.Broadcast()
		}
	}
}

func (q *Queue) runJob(ctx context.Context, j *Job) {
	defer func() {
		if p := recover(); p != nil {
			q.log.Error("jobqueue: a job panicked", "panic", fmt.Sprint(p))
		}
	}()
	j.run(ctx)
}

// Close cancels the running jobs' contexts, removes the queued jobs
// (Cancelled, never run), and waits until the workers have stopped. It is
// idempotent. Submit fails afterwards.
func (q *Queue) Close() {
	q.once.Do(func() {
		q.mu.Lock()
		q.closed = true
		dropped := q.queue
		q.queue = nil
		for _, j := range dropped {
			j.state = Cancelled
		}
		q.cond.Broadcast()
		q.mu.Unlock()
		q.cancel()
		for _, j := range dropped {
			close(j.done)
			q.endJob(j)
		}
		q.workers.Wait()
	})
}

// Stats is a snapshot of a Queue.
type Stats struct {
	Queued, Processing int   // jobs in each state
	InUse              int64 // summed cost of the running jobs
	QueuedCost         int64 // summed cost of the queued jobs, at most MaxInt64
}

// Stats returns a snapshot of the queue.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	var queued int64
	for _, j := range q.queue {
		queued += min(j.cost, math.MaxInt64-queued)
	}
	return Stats{Queued: len(q.queue), Processing: q.running, InUse: q.inUse, QueuedCost: queued}
}

// State returns the job's state.
func (j *Job) State() State {
	j.q.mu.Lock()
	defer j.q.mu.Unlock()
	return j.state
}

// Done is closed when the job has ended: its function returned, or it
// was removed from the queue.
func (j *Job) Done() <-chan struct{} { return j.done }

// Cancel removes a queued job (it never runs; its state becomes
// Cancelled) or cancels the context of a running one (it stays
// Processing until its function returns). It reports whether it changed
// anything: false for a job that has already ended.
func (j *Job) Cancel() bool {
	q := j.q
	q.mu.Lock()
	switch j.state {
	case Queued:
		for i, x := range q.queue {
			if x == j {
				q.queue = append(q.queue[:i], q.queue[i+1:]...)
				break
			}
		}
		j.state = Cancelled
		// The new head may fit where the removed one did not.
		q.reparkLocked()
		q.cond.Broadcast()
		q.mu.Unlock()
		close(j.done)
		q.endJob(j)
		return true
	case Processing:
		j.cancel()
		q.mu.Unlock()
		return true
	}
	q.mu.Unlock()
	return false
}
