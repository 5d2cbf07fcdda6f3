package transport

import (
	"sync"
	"sync/atomic"
	"time"
)

// headerWatch bounds the wait for response headers of every attempt of one
// Client (ResponseHeaderTimeout) with a single timer, instead of a timer per
// attempt: arming a runtime timer on an otherwise idle timer heap wakes the
// network poller, a system call and a thread wake-up on every request, which
// cost more than the rest of the transport's per-request work. All deadlines
// are "registration time + the same duration", so the queue is in deadline
// order; the timer is armed for the earliest live deadline and re-armed when
// it fires, and most attempts never touch it.
type headerWatch struct {
	d time.Duration

	mu    sync.Mutex
	queue []*watchEntry // in registration, hence deadline, order
	// compactAt is the queue length at which entries stopped out of order
	// are swept out (amortised: it doubles with the live entries).
	compactAt int
	timer     *time.Timer
	armed     bool
}

const minCompact = 64

// watchEntry is one attempt's registration. state moves once, from
// watching to stopped (the headers, or a failure, came first) or to expired
// (the deadline came first); whoever moves it owns the outcome. expire is
// dropped once stopped so that the queue does not keep the attempt alive
// (an entry that is part of its attempt does until it leaves the queue,
// which a stopped entry at its head does at the next add).
type watchEntry struct {
	deadline time.Time
	state    atomic.Int32
	expire   expirer
}

// expirer is what a registration ends when its deadline passes: an
// attempt (its headers or a body read it does itself) or the caller's
// reads of a body (readExpirer). An interface, not a func, so that
// registering costs no method value.
type expirer interface{ expire() }

// expireFunc is a func as an expirer.
type expireFunc func()

func (f expireFunc) expire() { f() }

const (
	watching int32 = iota
	stopped
	expired
)

func newHeaderWatch(d time.Duration) *headerWatch {
	return &headerWatch{d: d, compactAt: minCompact}
}

// add starts the bound of one attempt: x.expire runs (on the timer's
// goroutine) unless stop is called first.
func (w *headerWatch) add(x expirer) *watchEntry {
	e := new(watchEntry)
	w.addEntry(e, x)
	return e
}

// addEntry is add with the registration e, zero and never registered
// before: an attempt's first ones are part of the attempt, one allocation
// less each.
func (w *headerWatch) addEntry(e *watchEntry, x expirer) {
	e.expire = x
	w.mu.Lock()
	e.deadline = time.Now().Add(w.d)
	w.dropStoppedHead()
	if len(w.queue) >= w.compactAt {
		live := w.queue[:0]
		for _, q := range w.queue {
			if q.state.Load() == watching {
				live = append(live, q)
			}
		}
		clear(w.queue[len(live):])
		w.queue = live
		w.compactAt = max(minCompact, 2*len(live))
	}
	w.queue = append(w.queue, e)
	if !w.armed {
		w.arm(w.d)
	}
	w.mu.Unlock()
}

// stop ends the bound of an attempt; it reports false when the deadline
// came first (expire has run or is running).
func (e *watchEntry) stop() bool {
	if !e.state.CompareAndSwap(watching, stopped) {
		return false
	}
	e.expire = nil
	return true
}

// dropStoppedHead removes the finished entries at the front of the queue
// (attempts end mostly in the order they started). w.mu is held.
func (w *headerWatch) dropStoppedHead() {
	n := 0
	for n < len(w.queue) && w.queue[n].state.Load() != watching {
		n++
	}
	if n > 0 {
		rest := copy(w.queue, w.queue[n:])
		clear(w.queue[rest:])
		w.queue = w.queue[:rest]
	}
}

func (w *headerWatch) arm(d time.Duration) {
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
	w.armed = true
}

// fire expires every attempt whose deadline has passed and re-arms the
// timer for the next live one.
func (w *headerWatch) fire() {
	var due []expirer
	w.mu.Lock()
	w.armed = false
	now := time.Now()
	n := 0
	for ; n < len(w.queue); n++ {
		e := w.queue[n]
		if e.state.Load() != watching {
			continue
		}
		if e.deadline.After(now) {
			break
		}
		if e.state.CompareAndSwap(watching, expired) {
			due = append(due, e.expire)
			e.expire = nil
		}
	}
	rest := copy(w.queue, w.queue[n:])
	clear(w.queue[rest:])
	w.queue = w.queue[:rest]
	w.dropStoppedHead()
	if len(w.queue) > 0 {
		w.arm(w.queue[0].deadline.Sub(now))
	}
	w.mu.Unlock()
	for _, x := range due {
		x.expire()
	}
}
