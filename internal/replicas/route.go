package replicas

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// Fleet is a client's list of replicas, each with its own transport.
type Fleet = List[*transport.Client]

// Node is one replica of a Fleet.
type Node = Replica[*transport.Client]

// Policy is what a client tells Send about its API.
type Policy struct {
	// Failure reports whether an error answer of 500 or more counts
	// against the replica's health (not a failure of the job itself);
	// nil counts every 5xx but 501.
	Failure func(*apierr.APIError) bool
	// Elsewhere reports whether an error answer to a call about a key
	// means that this replica does not hold the key (404 of GET
	// /CheckImage, 400 unknownImageIdMessage of GET /pfc/{imageKey}), so
	// that Send asks the next replica.
	Elsewhere func(err error) bool
	// Check, when set, checks a 2xx answer to a call about a key bound to
	// no replica, before the key is bound: it returns the answer to hand
	// on (its body read and put back as needed), or an error when the
	// answer is not of the documented shape (a proxy's HTML page), its
	// body closed. Such a replica is passed over like one that answered
	// 5xx, and the answer counts against its health.
	Check func(resp *http.Response) (*http.Response, error)
}

// Flow is the routing state of one flow (a client's one-call flow, or its
// licence applied to each replica), passed explicitly to each Send of the
// flow: the replica its calls are pinned to, and what the flow learnt of
// it. A call without a flow passes nil.
type Flow struct {
	// Pin, when set, is the replica every call of the flow goes to.
	Pin *Node
	// Movable says that the flow does its work again on another replica
	// when Pin is lost: while the fleet has another replica, a call that
	// provably never reaches Pin ends at once
	// (transport.SendOptions.FailOver) instead of being retried against a
	// replica that is down, so the flow moves on without waiting out the
	// retries.
	Movable bool
	// Lost is set by the flow's client when it finds Pin down or hung
	// (see Unanswered, Unreachable, Policy.Sick): the flow then does its
	// work again elsewhere.
	Lost bool
}

// Pinned returns the replica f is pinned to; nil for a nil Flow.
func (f *Flow) Pinned() *Node {
	if f == nil {
		return nil
	}
	return f.Pin
}

// Sent is what Send tells its caller beside the answer: the replica of
// its last call (nil when none was made) and that call's Outcome.
type Sent struct {
	Replica *Node
	transport.Outcome
}

// Many reports whether the fleet has several replicas.
func (l *List[T]) Many() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all) > 1
}

// Send sends r to its replica, as r's Endpoint.Move allows: f's pin, when
// f has one; for a call about key (a job or image key), the replica bound
// to it, or else each replica in turn until one holds it (p.Elsewhere),
// then bound; for transport.MoveAny, the least busy replica, then the next
// while one fails as the replica's fault (see fault), setting aside one
// that did not answer in time; for transport.MoveUnsent, the least busy
// replica, then the next only while the call provably never reached one;
// else the least busy replica alone. p.Check runs only in a key's lookup.
// Each route is a loop here around the transport's Send, so that every
// call takes as few hops to http.Client.Do.
func Send(ctx context.Context, l *Fleet, f *Flow, key string, r *transport.Request, p Policy) (*http.Response, Sent, error) {
	if ctx == nil || r == nil {
		// The transport reports the nil context or Request.
		resp, out, err := l.First().Value.Send(ctx, r, transport.SendOptions{})
		return resp, Sent{Outcome: out}, err
	}
	check := p.Check // for the lookup of an unbound key only
	p.Check = nil
	if pin := f.Pinned(); pin != nil {
		many, o := begin(l, pin, transport.SendOptions{FailOver: f.Movable && l.Len() > 1})
		resp, out, err := pin.Value.Send(ctx, r, o)
		resp, _, err = end(ctx, l, pin, many, resp, err, p)
		return resp, Sent{Replica: pin, Outcome: out}, err
	}
	move := transport.Stay
	if r.Endpoint != nil {
		move = r.Endpoint.Move
	}
	var (
		resp     *http.Response
		out      transport.Outcome
		err      error
		firstErr error // the first fault of a lookup or an ask
		tried    []*Node
	)
	switch {
	case key != "":
		if rep, ok := l.Lookup(key); ok || !l.Many() {
			if !ok {
				rep = l.First()
			}
			many, o := begin(l, rep, transport.SendOptions{})
			resp, out, err = rep.Value.Send(ctx, r, o)
			resp, _, err = end(ctx, l, rep, many, resp, err, p)
			return resp, Sent{Replica: rep, Outcome: out}, err
		}
		// The lookup: each replica in turn (lookupOrder); calls about a
		// key have no side effect on a replica that does not hold it. A
		// replica that does not hold the key (p.Elsewhere) or whose call
		// failed as the replica's fault (see fault), or whose 2xx failed
		// check, is passed over. The key is bound only to a replica
		// whose answer shows that it holds the key (see holds). When none
		// does, the first fault is returned, unbound: that replica may
		// hold the key, so the next call looks again; else the last
		// replica's answer.
		withCheck := p
		withCheck.Check = check
		var last *Node
		for _, rep := range l.lookupOrder() {
			var bad bool // a 2xx that failed check
			last = rep
			many, o := begin(l, rep, transport.SendOptions{})
			resp, out, err = rep.Value.Send(ctx, r, o)
			resp, bad, err = end(ctx, l, rep, many, resp, err, withCheck)
			if err != nil && ctx.Err() != nil {
				return resp, Sent{Replica: rep, Outcome: out}, err
			}
			if err != nil && p.Elsewhere != nil && p.Elsewhere(err) {
				continue
			}
			if bad || fault(p, err) {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if holds(p, err) {
				l.Bind(key, rep)
			}
			return resp, Sent{Replica: rep, Outcome: out}, err
		}
		if firstErr != nil {
			return nil, Sent{Replica: last, Outcome: out}, firstErr
		}
		return resp, Sent{Replica: last, Outcome: out}, err
	case move == transport.MoveAny && l.Many():
		// Replicas set aside are asked last (Pick), and one that did not
		// answer in time is set aside at once: a working one answers such
		// a call at once, so it hangs, and each call would wait as long
		// on it.
		for {
			rep := l.Pick(tried...)
			if rep == nil { // every live replica asked (or none left)
				if firstErr == nil {
					break // none asked: as new work below
				}
				return nil, Sent{Outcome: out}, firstErr
			}
			many, o := begin(l, rep, transport.SendOptions{FailOver: len(tried)+1 < l.Len()})
			resp, out, err = rep.Value.Send(ctx, r, o)
			resp, _, err = end(ctx, l, rep, many, resp, err, p)
			l.Release(rep)
			if ctx.Err() != nil || !fault(p, err) {
				return resp, Sent{Replica: rep, Outcome: out}, err
			}
			if Unanswered(err) {
				l.SetAside(rep)
			}
			if firstErr == nil {
				firstErr = err
			}
			tried = append(tried, rep)
		}
		tried = nil
	}
	for {
		rep := l.Pick(tried...)
		if rep == nil { // every replica tried (or none left)
			rep = l.First()
			l.Acquire(rep)
		}
		more := move != transport.Stay && len(tried)+1 < l.Len()
		many, o := begin(l, rep, transport.SendOptions{FailOver: more})
		resp, out, err = rep.Value.Send(ctx, r, o)
		resp, _, err = end(ctx, l, rep, many, resp, err, p)
		l.Release(rep)
		if err == nil || !more || !transport.NeverSent(err) || out.RetriedAfterLanding || ctx.Err() != nil {
			return resp, Sent{Replica: rep, Outcome: out}, err
		}
		tried = append(tried, rep)
	}
}

// lookupOrder is the order Send asks the replicas in about a key bound to
// none: those taking work
// first, then those whose address vanished (they may still hold jobs, but
// a vanished pod's address can make each call wait out a dial timeout),
// then those set aside (a hung one makes each call wait out the response
// header timeout), each group in discovery order.
func (l *List[T]) lookupOrder() []*Replica[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.all)
	rank := func(r *Replica[T]) int {
		n := 0
		if r.gone {
			n++
		}
		if r.aside {
			n += 2
		}
		return n
	}
	slices.SortStableFunc(out, func(a, b *Replica[T]) int { return rank(a) - rank(b) })
	return out
}

// fault reports whether a call's error is the replica's fault, counted
// against its health (see Failed): the call never reached it, it sent no
// answer within the response header timeout, or it answered a 5xx that
// the policy counts as the replica's failure.
func fault(p Policy, err error) bool {
	if err == nil {
		return false
	}
	var ae *apierr.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500 && failure(p, ae)
	}
	return transport.NeverSent(err) || errors.Is(err, apierr.ErrResponseHeaderTimeout)
}

// holds reports whether a call's outcome, not Elsewhere, shows that the
// replica holds the key: a success, an informational answer (still
// processing), or a 5xx the policy counts as the job's failure rather
// than the replica's (processing failed).
func holds(p Policy, err error) bool {
	if err == nil {
		return true
	}
	var ae *apierr.APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.StatusCode < 400 || (ae.StatusCode >= 500 && ae.StatusCode != http.StatusNotImplemented && !failure(p, ae))
}

// begin counts a call to rep in flight, in a fleet of several replicas
// (many), and returns its SendOptions: a replica set aside gets one
// attempt, not retries, when the call provably never reaches it. end
// closes what begin opened. The two surround each rep.Value.Send of Send,
// written out there rather than in a function of their own, which would
// be one more hop on every call's way to http.Client.Do.
func begin(l *Fleet, rep *Node, o transport.SendOptions) (many bool, _ transport.SendOptions) {
	if many = l.Many(); many {
		l.Acquire(rep)
		if !l.Healthy(rep) {
			o.FailOver = true
		}
	}
	return many, o
}

// end runs p.Check, when set, on a 2xx answer of rep: bad reports one that
// failed it, counted as the replica's failure (it answered, but not as the
// service does). It records the call's outcome for the replica's health
// and ends its count in flight (see begin).
func end(ctx context.Context, l *Fleet, rep *Node, many bool, resp *http.Response, err error, p Policy) (_ *http.Response, bad bool, _ error) {
	if err == nil && p.Check != nil {
		resp, err = p.Check(resp)
		bad = err != nil
	}
	if many {
		if ctx.Err() == nil {
			if bad || fault(p, err) {
				l.Failed(rep)
			} else {
				l.Succeeded(rep)
			}
		}
		l.Release(rep)
	}
	return resp, bad, err
}

// Sick reports whether err is an answer of 500 or more that p counts
// against the replica's health (see Policy.Failure), not a failure of the
// job itself (processing failed). A Movable Flow treats it
// as its replica lost, once the client's retries are spent: it does its
// work again on another replica.
func (p Policy) Sick(err error) bool {
	var ae *apierr.APIError
	return errors.As(err, &ae) && ae.StatusCode >= 500 && failure(p, ae)
}

func failure(p Policy, ae *apierr.APIError) bool {
	if p.Failure != nil {
		return p.Failure(ae)
	}
	return ae.StatusCode != http.StatusNotImplemented
}

// Unanswered reports whether err, a call's error, is its replica not
// answering in time: no response headers, or no byte of a body, within
// the response header timeout (a replica that accepts connections and
// hangs). A Movable Flow treats it as its replica lost and
// does its work again on another one, without a probe, which would wait
// as long again.
func Unanswered(err error) bool { return errors.Is(err, apierr.ErrResponseHeaderTimeout) }

// Unreachable reports whether rep is down: probe, sent once
// (transport.SendOptions.FailOver), never reaches it. It answers false
// once ctx is done.
func Unreachable(ctx context.Context, rep *Node, probe func(context.Context, *transport.Client) error) bool {
	return ctx.Err() == nil && transport.NeverSent(probe(ctx, rep.Value))
}
