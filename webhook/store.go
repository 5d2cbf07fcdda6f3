package webhook

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Claim is what IdempotencyStore.Begin found for a webhook-id.
type Claim int

// The outcomes of IdempotencyStore.Begin. The zero value is none of them,
// and the middleware treats it as a store error.
const (
	// ClaimAcquired: the id was neither handled nor in progress; the
	// caller now holds it and must call Complete or Abort.
	ClaimAcquired Claim = iota + 1
	// ClaimInProgress: another delivery with the id is being handled.
	ClaimInProgress
	// ClaimDone: a delivery with the id was handled successfully.
	ClaimDone
)

// String returns the constant's name without the "Claim" prefix.
func (c Claim) String() string {
	switch c {
	case ClaimAcquired:
		return "Acquired"
	case ClaimInProgress:
		return "InProgress"
	case ClaimDone:
		return "Done"
	}
	return "Invalid"
}

// IdempotencyStore remembers which deliveries have been handled, keyed on
// webhook-id (the same on every retry of a delivery). The middleware calls
// Begin for each authentic delivery; after ClaimAcquired it calls Complete
// when the handler answered 2xx and Abort otherwise, a panic included, so
// that the service's retry is processed. Begin must be atomic: of two
// concurrent calls for an id, at most one gets ClaimAcquired. A shared
// store (Redis SET NX, a unique row) should lease in-progress claims past
// the slowest handler, and keep completed ids past the retry window (9
// attempts, the last 48 minutes after the first).
type IdempotencyStore interface {
	// Begin claims id, or reports that it is in progress or done.
	Begin(ctx context.Context, id string) (Claim, error)
	// Complete records that the delivery with id was handled.
	Complete(ctx context.Context, id string) error
	// Abort releases the claim on id without recording it as handled.
	Abort(ctx context.Context, id string) error
}

// Defaults of MemoryStoreOptions.
const (
	defaultStoreTTL        = 24 * time.Hour
	defaultStoreMaxEntries = 100_000
)

// MemoryStoreOptions configures NewMemoryStore; the zero value gives the
// defaults.
type MemoryStoreOptions struct {
	// TTL is how long a completed id is remembered; zero or less means
	// 24 hours. Keep it above the 48-minute retry window.
	TTL time.Duration
	// MaxEntries bounds the number of completed ids remembered; when it is
	// reached the oldest is forgotten first. Zero or less means 100,000.
	MaxEntries int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// MemoryStore is an in-process IdempotencyStore: completed ids expire after
// a TTL and their number is bounded; expired ids are swept as the store is
// used, with no background goroutine. In-progress claims do not expire:
// the middleware always releases them, even when the handler panics. Use a
// shared store instead when several processes receive deliveries.
//
// The zero value is ready to use with the defaults; NewMemoryStore sets
// other options. A MemoryStore must not be copied after first use.
type MemoryStore struct {
	mu         sync.Mutex
	ttl        time.Duration
	maxEntries int
	now        func() time.Time
	inProgress map[string]struct{}
	done       map[string]*list.Element // of *doneEntry
	order      list.List                // completion order, oldest first
}

type doneEntry struct {
	id      string
	expires time.Time
}

var _ IdempotencyStore = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts MemoryStoreOptions) *MemoryStore {
	s := &MemoryStore{ttl: opts.TTL, maxEntries: opts.MaxEntries, now: opts.Now}
	s.init()
	return s
}

// init applies the defaults and makes the maps, for NewMemoryStore and for
// the first use of a zero MemoryStore. Callers hold s.mu, or own s alone.
func (s *MemoryStore) init() {
	if s.inProgress != nil {
		return
	}
	if s.ttl <= 0 {
		s.ttl = defaultStoreTTL
	}
	if s.maxEntries <= 0 {
		s.maxEntries = defaultStoreMaxEntries
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.inProgress = make(map[string]struct{})
	s.done = make(map[string]*list.Element)
}

// Begin implements IdempotencyStore. It never fails.
func (s *MemoryStore) Begin(_ context.Context, id string) (Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	now := s.now()
	s.sweep(now)
	if _, ok := s.inProgress[id]; ok {
		return ClaimInProgress, nil
	}
	if e, ok := s.done[id]; ok {
		// The sweep stops at the first live entry, so a clock that went
		// back can leave an expired entry behind it; check it here.
		if now.Before(e.Value.(*doneEntry).expires) {
			return ClaimDone, nil
		}
		s.remove(e)
	}
	s.inProgress[id] = struct{}{}
	return ClaimAcquired, nil
}

// Complete implements IdempotencyStore: id is remembered as handled for
// the TTL. It never fails.
func (s *MemoryStore) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	now := s.now()
	s.sweep(now)
	delete(s.inProgress, id)
	if e, ok := s.done[id]; ok {
		s.remove(e)
	}
	s.done[id] = s.order.PushBack(&doneEntry{id: id, expires: now.Add(s.ttl)})
	for len(s.done) > s.maxEntries {
		s.remove(s.order.Front())
	}
	return nil
}

// Abort implements IdempotencyStore: the claim on id is dropped. It never
// fails.
func (s *MemoryStore) Abort(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	delete(s.inProgress, id)
	return nil
}

// sweep forgets the completed ids that expired. Entries are in completion
// order and share one TTL, so the expired ones are at the front: the cost
// is proportional to what is removed.
func (s *MemoryStore) sweep(now time.Time) {
	for e := s.order.Front(); e != nil; e = s.order.Front() {
		if now.Before(e.Value.(*doneEntry).expires) {
			return
		}
		s.remove(e)
	}
}

func (s *MemoryStore) remove(e *list.Element) {
	delete(s.done, e.Value.(*doneEntry).id)
	s.order.Remove(e)
}

// size returns the number of completed and in-progress ids (for tests).
func (s *MemoryStore) size() (done, inProgress int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	return len(s.done), len(s.inProgress)
}
