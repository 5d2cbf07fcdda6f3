package replicas

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/redact"
)

// Defaults of Options.
const (
	DefaultResolveEvery = 30 * time.Second
	DefaultThreshold    = 3
	DefaultMinBackoff   = time.Second
	DefaultMaxBackoff   = time.Minute
	DefaultMaxBound     = 100_000
	// MaxWeight is the largest weight a replica may have; a larger one
	// would overflow the choice's arithmetic.
	MaxWeight = 1_000_000
	// probeTimeout bounds one background probe.
	probeTimeout = 10 * time.Second
)

// Target is one static replica: its base URL and weight (0 means 1, at
// most MaxWeight). Targets of one Key (two spellings of one URL) are one
// replica, the first one's.
type Target struct {
	URL    string
	Weight int
}

// Resolver resolves a host name to its addresses; *net.Resolver is one.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// Options configures a List. Exactly one of Targets and Host is set.
type Options[T any] struct {
	// Targets are static replicas, in order.
	Targets []Target
	// Host is a base URL whose host name resolves to the replicas'
	// addresses (e.g. "http://bg.studio.svc:8000").
	Host string
	// Resolver resolves Host; nil means net.DefaultResolver.
	Resolver Resolver
	// Weights gives replicas, by base URL (any spelling of the same Key),
	// a weight other than their Target's (for Host, a resolved address's
	// URL), from 1 to MaxWeight.
	Weights map[string]int
	// ResolveEvery is how old a resolution may get before the next Pick
	// starts another; 0 means DefaultResolveEvery.
	ResolveEvery time.Duration
	// New builds a replica's value (its HTTP client) from its base URL.
	// Required.
	New func(baseURL string) (T, error)
	// Probe checks a replica set aside; nil readmits it once its backoff
	// has passed.
	Probe func(ctx context.Context, r *Replica[T]) error
	// Threshold is how many consecutive failures set a replica aside; 0
	// means DefaultThreshold.
	Threshold int
	// MinBackoff and MaxBackoff bound the wait before a replica set aside
	// is probed; 0 means the defaults.
	MinBackoff, MaxBackoff time.Duration
	// MaxBound bounds the affinity map; 0 means DefaultMaxBound.
	MaxBound int
	// Clock is the time source; nil means the time package.
	Clock poll.Clock
}

// Replica is one instance of the container.
type Replica[T any] struct {
	// URL is the replica's base URL; Index its position in the list's
	// order of discovery (0 for the first).
	URL   string
	Index int
	// Weight is its share of new work (at least 1).
	Weight int
	// Value is what Options.New built for it.
	Value T

	// Guarded by the List's mu.
	inFlight int
	fails    int
	aside    bool
	retryAt  time.Time
	backoff  time.Duration
	probing  bool
	gone     bool // its address no longer resolves: no new work
}

// List is a client's replica list. It is safe for concurrent use.
type List[T any] struct {
	o     Options[T]
	clock poll.Clock
	base  *url.URL // Host mode: the template

	mu         sync.Mutex
	all        []*Replica[T]          // every replica ever made, in discovery order
	byURL      map[string]*Replica[T] // by Key
	rotate     int
	resolvedAt time.Time
	resolving  bool
	bound      map[string]binding[T]
	order      []boundKey // bindings, oldest first
	head       int        // order[:head] are dropped entries
	seq        uint64

	bg sync.WaitGroup // background probes and resolutions (tests wait)
}

type binding[T any] struct {
	r   *Replica[T]
	seq uint64
}

type boundKey struct {
	key string
	seq uint64
}

// ErrNoReplicas matches the error of a Host that resolves to no address.
var ErrNoReplicas = errors.New("pfc: the replica host name resolves to no address")

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// New validates o and builds the list; in Host mode the name is resolved
// now, under ctx. Invalid settings are reported as an
// *apierr.ValidationError naming the field.
func New[T any](ctx context.Context, o Options[T]) (*List[T], error) {
	var fe apierr.FieldErrors
	switch {
	case len(o.Targets) == 0 && o.Host == "":
		fe.Add("Targets", "is empty and no Host is set")
	case len(o.Targets) > 0 && o.Host != "":
		fe.Add("Host", "cannot be combined with Targets")
	}
	if o.New == nil {
		fe.Add("New", "is required")
	}
	for i, t := range o.Targets {
		if t.Weight < 0 || t.Weight > MaxWeight {
			fe.Add(fmt.Sprintf("Targets[%d].Weight", i), "must be from 0 to %d, got %d", MaxWeight, t.Weight)
		}
	}
	weights := make(map[string]int, len(o.Weights))
	for _, u := range slices.Sorted(maps.Keys(o.Weights)) {
		w, k := o.Weights[u], Key(u)
		if w < 1 || w > MaxWeight {
			fe.Add("Weights", "the weight of %s must be from 1 to %d, got %d", redact.WebhookURL(u), MaxWeight, w)
		} else if prev, ok := weights[k]; ok && prev != w {
			// Quoted as the transport quotes URLs: it may carry a credential.
			fe.Add("Weights", "%s is given two weights, %d and %d", redact.WebhookURL(u), prev, w)
		}
		weights[k] = w
	}
	o.Weights = weights
	if o.ResolveEvery < 0 || o.MinBackoff < 0 || o.MaxBackoff < 0 || o.Threshold < 0 || o.MaxBound < 0 {
		fe.Add("Options", "durations and counts must not be negative")
	}
	var base *url.URL
	if o.Host != "" {
		u, err := url.Parse(o.Host)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			fe.Add("Host", "must be an absolute http or https URL with a host name")
		} else {
			// A replica's URL is compared without a trailing slash, as
			// the static ones are (weights, manifests).
			u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/"), strings.TrimSuffix(u.RawPath, "/")
			base = u
		}
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	o.ResolveEvery = cmpOr(o.ResolveEvery, DefaultResolveEvery)
	o.Threshold = cmpOr(o.Threshold, DefaultThreshold)
	o.MinBackoff = cmpOr(o.MinBackoff, DefaultMinBackoff)
	o.MaxBackoff = max(cmpOr(o.MaxBackoff, DefaultMaxBackoff), o.MinBackoff)
	o.MaxBound = cmpOr(o.MaxBound, DefaultMaxBound)
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	l := &List[T]{o: o, clock: o.Clock, base: base, byURL: map[string]*Replica[T]{}, bound: map[string]binding[T]{}}
	if l.clock == nil {
		l.clock = realClock{}
	}
	for _, t := range o.Targets {
		if _, err := l.add(t.URL, t.Weight); err != nil {
			return nil, err
		}
	}
	if base != nil {
		if err := l.resolve(ctx); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func cmpOr[N int | time.Duration](v, def N) N {
	if v == 0 {
		return def
	}
	return v
}

// add makes the replica of baseURL, or revives the one of its Key.
func (l *List[T]) add(baseURL string, weight int) (*Replica[T], error) {
	k := Key(baseURL)
	if r, ok := l.byURL[k]; ok {
		r.gone = false
		return r, nil
	}
	v, err := l.o.New(baseURL)
	if err != nil {
		return nil, err
	}
	if w, ok := l.o.Weights[k]; ok {
		weight = w
	}
	r := &Replica[T]{URL: baseURL, Index: len(l.all), Weight: max(weight, 1), Value: v}
	l.all = append(l.all, r)
	l.byURL[k] = r
	return r, nil
}

// resolve looks Host up and updates the set: new addresses are added,
// vanished ones marked gone.
func (l *List[T]) resolve(ctx context.Context) error {
	addrs, err := l.o.Resolver.LookupHost(ctx, l.base.Hostname())
	if err == nil && len(addrs) == 0 {
		err = ErrNoReplicas
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.resolvedAt = l.clock.Now()
	if err != nil {
		return fmt.Errorf("pfc: resolving the replicas of %s: %w", l.base.Hostname(), err)
	}
	sort.Strings(addrs)
	keep := map[*Replica[T]]bool{}
	for _, a := range addrs {
		u := *l.base
		if p := l.base.Port(); p != "" {
			u.Host = net.JoinHostPort(a, p)
		} else if net.ParseIP(a) != nil && net.ParseIP(a).To4() == nil {
			u.Host = "[" + a + "]"
		} else {
			u.Host = a
		}
		r, err := l.add(u.String(), 1)
		if err != nil {
			return err
		}
		keep[r] = true
	}
	for _, r := range l.all {
		r.gone = !keep[r]
	}
	return nil
}

// Pick chooses the replica for new work, skipping exclude (replicas a
// call already found unreachable), and counts a call in flight on it; the
// caller calls Release when the work ends. It returns nil only when every
// replica is excluded.
func (l *List[T]) Pick(exclude ...*Replica[T]) *Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.maintainLocked()
	var best *Replica[T]
	for pass := 0; pass < 2 && best == nil; pass++ {
		n := len(l.all)
		for i := range n {
			r := l.all[(l.rotate+i)%n]
			if r.gone || slices.Contains(exclude, r) || (pass == 0 && r.aside) {
				continue
			}
			if best == nil || lighter(r, best) {
				best = r
			}
		}
	}
	if best == nil {
		return nil
	}
	l.rotate++
	best.inFlight++
	return best
}

// lighter reports whether a has fewer calls in flight than b relative to
// its weight: (inFlight+1)/Weight smaller, compared without division in
// int64, which a weight of MaxWeight times any count of calls in flight
// cannot overflow (int, 32 bits on some platforms, overflowed past 2,147
// calls in flight on a replica of weight 1,000,000).
func lighter[T any](a, b *Replica[T]) bool {
	return int64(a.inFlight+1)*int64(b.Weight) < int64(b.inFlight+1)*int64(a.Weight)
}

// Acquire counts a call in flight on r (a job's later calls, which go to
// its replica); the caller calls Release when it ends.
func (l *List[T]) Acquire(r *Replica[T]) {
	l.mu.Lock()
	r.inFlight++
	l.mu.Unlock()
}

// Release ends a call counted by Pick or Acquire.
func (l *List[T]) Release(r *Replica[T]) {
	l.mu.Lock()
	r.inFlight--
	l.mu.Unlock()
}

// maintainLocked starts a re-resolution when the last one is stale and a
// probe of each replica set aside whose backoff has passed.
func (l *List[T]) maintainLocked() {
	now := l.clock.Now()
	if l.base != nil && !l.resolving && now.Sub(l.resolvedAt) >= l.o.ResolveEvery {
		l.resolving = true
		l.bg.Add(1)
		go func() {
			defer l.bg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			_ = l.resolve(ctx) // a failure keeps the current set
			l.mu.Lock()
			l.resolving = false
			l.mu.Unlock()
		}()
	}
	for _, r := range l.all {
		if r.aside && !r.probing && !now.Before(r.retryAt) {
			r.probing = true
			l.bg.Add(1)
			go l.probe(r)
		}
	}
}

func (l *List[T]) probe(r *Replica[T]) {
	defer l.bg.Done()
	var err error
	if l.o.Probe != nil {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		err = l.o.Probe(ctx, r)
		cancel()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r.probing = false
	if err == nil {
		r.aside, r.fails, r.backoff = false, 0, 0
		return
	}
	r.backoff = min(r.backoff*2, l.o.MaxBackoff)
	r.retryAt = l.clock.Now().Add(r.backoff)
}

// Succeeded reports a call that r answered (any status below 500): its
// failure count restarts.
func (l *List[T]) Succeeded(r *Replica[T]) {
	l.mu.Lock()
	r.fails = 0
	l.mu.Unlock()
}

// Failed reports a call that never reached r, that r did not answer
// within the response header timeout, or that r answered 5xx; Threshold
// consecutive ones set it aside.
func (l *List[T]) Failed(r *Replica[T]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.fails++
	if r.fails >= l.o.Threshold {
		l.setAsideLocked(r)
	}
}

// SetAside takes r out of the choice at once (a probe proved it down).
func (l *List[T]) SetAside(r *Replica[T]) {
	l.mu.Lock()
	l.setAsideLocked(r)
	l.mu.Unlock()
}

func (l *List[T]) setAsideLocked(r *Replica[T]) {
	if r.aside {
		return
	}
	r.aside = true
	r.backoff = l.o.MinBackoff
	r.retryAt = l.clock.Now().Add(r.backoff)
}

// Healthy reports whether r takes new work (not set aside, still
// resolved).
func (l *List[T]) Healthy(r *Replica[T]) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !r.aside && !r.gone
}

// Len returns the number of replicas that take new work, set-aside ones
// included.
func (l *List[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.all {
		if !r.gone {
			n++
		}
	}
	return n
}

// All returns every replica made so far, in discovery order.
func (l *List[T]) All() []*Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.all)
}

// Live returns the replicas that take new work (still resolved), set-aside
// ones included, in discovery order.
func (l *List[T]) Live() []*Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*Replica[T]
	for _, r := range l.all {
		if !r.gone {
			out = append(out, r)
		}
	}
	return out
}

// First returns the first replica (the one a single-URL client uses).
func (l *List[T]) First() *Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all[0]
}

// ByURL returns the replica of baseURL (any spelling of its Key), or nil.
func (l *List[T]) ByURL(baseURL string) *Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byURL[Key(baseURL)]
}

// Recorded reads where a bulk manifest recorded key (a process id, an
// image key) as on: replica, the Key of a replica of the list's, or
// empty for a client of one base URL. It returns that replica, bound to
// key (nil for a list of one, whose replica holds key), or why the record
// does not hold for this list (the job is as good as forgotten): "" when
// it does.
func (l *List[T]) Recorded(key, replica string) (r *Replica[T], why string) {
	switch {
	case l.Many():
		if replica == "" {
			return nil, "recorded by a client of one base URL"
		}
		if r = l.ByURL(replica); r == nil {
			return nil, "its replica is no longer in the fleet"
		}
		l.Bind(key, r)
	case replica != "" && Key(l.First().URL) != replica:
		return nil, "recorded on another replica"
	}
	return r, ""
}

// Bind records that key (a process id, an image key) lives on r. When
// the map holds MaxBound keys the oldest binding is dropped.
func (l *List[T]) Bind(key string, r *Replica[T]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.bound[key] = binding[T]{r: r, seq: l.seq}
	l.order = append(l.order, boundKey{key, l.seq})
	for len(l.bound) > l.o.MaxBound && l.head < len(l.order) {
		k := l.order[l.head]
		l.order[l.head] = boundKey{}
		l.head++
		if b, ok := l.bound[k.key]; ok && b.seq == k.seq {
			delete(l.bound, k.key)
		}
	}
	// Entries of rebound or unbound keys stay in order until they come
	// up; compact when order outgrows the map.
	if len(l.order)-l.head > 2*len(l.bound)+1024 {
		live := l.order[:0:0]
		for _, k := range l.order[l.head:] {
			if b, ok := l.bound[k.key]; ok && b.seq == k.seq {
				live = append(live, k)
			}
		}
		l.order, l.head = live, 0
	} else if l.head > 1024 && l.head > len(l.order)/2 {
		l.order, l.head = slices.Clone(l.order[l.head:]), 0
	}
}

// Lookup returns the replica key was bound to.
func (l *List[T]) Lookup(key string) (*Replica[T], bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.bound[key]
	return b.r, ok
}

// Unbind forgets key (its job was removed).
func (l *List[T]) Unbind(key string) {
	l.mu.Lock()
	delete(l.bound, key)
	l.mu.Unlock()
}
