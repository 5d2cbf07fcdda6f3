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

type pinKey struct{}

// pin is a replica calls are pinned to; movable says the caller does the
// work again on another replica when this one is lost (see PinMovable).
type pin struct {
	node    *Node
	movable bool
}

// Pin makes every call under ctx go to r: a flow's calls stay on one
// replica.
func Pin(ctx context.Context, r *Node) context.Context {
	return context.WithValue(ctx, pinKey{}, pin{node: r})
}

// PinMovable is Pin for a flow that, when r is lost, does its work again
// on another replica: while the fleet has another live replica, a call
// that provably never reaches r ends at once (Request.FailOver) instead of
// being retried against a replica that is down, so the flow moves on
// without waiting out the retries.
func PinMovable(ctx context.Context, r *Node) context.Context {
	return context.WithValue(ctx, pinKey{}, pin{node: r, movable: true})
}

// Pinned returns the replica ctx is pinned to, or nil.
func Pinned(ctx context.Context) *Node {
	p, _ := pinOf(ctx)
	return p.node
}

func pinOf(ctx context.Context) (pin, bool) {
	if ctx == nil {
		return pin{}, false
	}
	p, ok := ctx.Value(pinKey{}).(pin)
	return p, ok && p.node != nil
}

type noteKey struct{}

// Note is filled by Send: the replica of the last call under its context
// and whether that call provably never reached it.
type Note struct {
	Replica   *Node
	NeverSent bool
}

// WithNote returns a context whose calls fill the returned Note.
func WithNote(ctx context.Context) (context.Context, *Note) {
	n := &Note{}
	if ctx == nil {
		return nil, n // the call reports the nil context
	}
	return context.WithValue(ctx, noteKey{}, n), n
}

// Many reports whether the fleet has several replicas.
func (l *List[T]) Many() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all) > 1
}

// Send sends r to its replica: the pinned one; for a call about key (a
// job or image key), the replica bound to it, or else each replica in
// turn until one holds it (p.Elsewhere), which is then bound; for new work
// (key ""), the least busy replica, moving to the next only when the
// request provably never reached one (transport.NeverSent, and no attempt
// that may have landed).
func Send(ctx context.Context, l *Fleet, key string, r *transport.Request, p Policy) (*http.Response, error) {
	if ctx == nil {
		return l.First().Value.Do(ctx, r) // the transport reports the nil context
	}
	check := p.Check // for locate only
	p.Check = nil
	if pinned, ok := pinOf(ctx); ok {
		if pinned.movable && l.Len() > 1 && !r.FailOver {
			rr := *r
			rr.FailOver = true
			r = &rr
		}
		resp, _, err := sendTo(ctx, l, pinned.node, r, p)
		return resp, err
	}
	if key != "" {
		if rep, ok := l.Lookup(key); ok || !l.Many() {
			if !ok {
				rep = l.First()
			}
			resp, _, err := sendTo(ctx, l, rep, r, p)
			return resp, err
		}
		return locate(ctx, l, key, r, p, check)
	}
	var tried []*Node
	for {
		rep := l.Pick(tried...)
		if rep == nil { // every replica tried (or none left)
			rep = l.First()
			l.Acquire(rep)
		}
		rr := *r
		more := len(tried)+1 < l.Len()
		rr.FailOver = rr.FailOver || more
		landed := false
		if rr.RetriedAfterLanding == nil {
			rr.RetriedAfterLanding = &landed
		}
		resp, _, err := sendTo(ctx, l, rep, &rr, p)
		l.Release(rep)
		if err == nil || !more || !transport.NeverSent(err) || *rr.RetriedAfterLanding || ctx.Err() != nil {
			return resp, err
		}
		tried = append(tried, rep)
	}
}

// locate asks each replica in turn about key; calls about a key have no
// side effect on a replica that does not hold it. A replica that does not
// hold the key (p.Elsewhere) or whose call failed as the replica's fault
// (see fault: never reached, no answer in time, a 5xx of a struggling
// replica) is passed over for the next. The key is bound only to a
// replica whose answer shows that it holds the key (see holds). When none
// does, the first fault is returned, unbound: that replica may hold the
// key, so the next call looks again; else the last replica's answer.
func locate(ctx context.Context, l *Fleet, key string, r *transport.Request, p Policy, check func(*http.Response) (*http.Response, error)) (*http.Response, error) {
	withCheck := p
	withCheck.Check = check
	var (
		resp     *http.Response
		err      error
		firstErr error // the first fault
	)
	for _, rep := range l.lookupOrder() {
		var bad bool // a 2xx that failed p.Check
		resp, bad, err = sendTo(ctx, l, rep, r, withCheck)
		if err != nil && ctx.Err() != nil {
			return resp, err
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
		return resp, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return resp, err
}

// lookupOrder is the order locate asks the replicas in: those taking work
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

// Ask sends r, a call without side effects that every replica answers
// alike (GET /Status, GET /version), to the least busy replica, and to
// the next when the call failed as the replica's fault (see Failed): not
// reached, not answered in time, answered 5xx. Replicas set aside are
// asked last, and a replica that did not answer in time is set aside at
// once: a working one answers such a call at once, so it hangs, and each
// call would wait as long on it. It returns the first answer that is not
// such a fault, else the first fault. A pinned call goes to its pin only.
func Ask(ctx context.Context, l *Fleet, r *transport.Request, p Policy) (*http.Response, error) {
	if _, ok := pinOf(ctx); ok || ctx == nil || !l.Many() {
		return Send(ctx, l, "", r, p)
	}
	p.Check = nil // checks an answer about a key
	var (
		tried    []*Node
		firstErr error
	)
	for {
		rep := l.Pick(tried...)
		if rep == nil { // every live replica asked (or none left)
			if firstErr == nil {
				return Send(ctx, l, "", r, p)
			}
			return nil, firstErr
		}
		rr := *r
		rr.FailOver = rr.FailOver || len(tried)+1 < l.Len()
		resp, _, err := sendTo(ctx, l, rep, &rr, p)
		l.Release(rep)
		if ctx.Err() != nil || !fault(p, err) {
			return resp, err
		}
		if Unanswered(err) {
			l.SetAside(rep)
		}
		if firstErr == nil {
			firstErr = err
		}
		tried = append(tried, rep)
	}
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

// sendTo sends r to rep, counts it in flight and records its outcome for
// the replica's health and in ctx's Note. It runs p.Check, when set, on a
// 2xx answer: bad reports one that failed it, counted as the replica's
// failure (it answered, but not as the service does). A replica set aside gets one
// attempt, not retries, when the call provably never reaches it.
func sendTo(ctx context.Context, l *Fleet, rep *Node, r *transport.Request, p Policy) (_ *http.Response, bad bool, _ error) {
	many := l.Many()
	if many {
		l.Acquire(rep)
		defer l.Release(rep)
		if !l.Healthy(rep) {
			rr := *r
			rr.FailOver = true
			r = &rr
		}
	}
	resp, err := rep.Value.Do(ctx, r)
	if err == nil && p.Check != nil {
		resp, err = p.Check(resp)
		bad = err != nil
	}
	never := transport.NeverSent(err)
	if n, ok := ctx.Value(noteKey{}).(*Note); ok {
		n.Replica, n.NeverSent = rep, never
	}
	if many && ctx.Err() == nil {
		if bad || fault(p, err) {
			l.Failed(rep)
		} else {
			l.Succeeded(rep)
		}
	}
	return resp, bad, err
}

// Sick reports whether err is an answer of 500 or more that p counts
// against the replica's health (see Policy.Failure), not a failure of the
// job itself (processing failed). A flow pinned with PinMovable treats it
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
// hangs). A flow pinned with PinMovable treats it as its replica lost and
// does its work again on another one, without a probe, which would wait
// as long again.
func Unanswered(err error) bool { return errors.Is(err, apierr.ErrResponseHeaderTimeout) }

// Unreachable reports whether rep is down: probe, sent once
// (Request.FailOver), never reaches it. It answers false once ctx is done.
func Unreachable(ctx context.Context, rep *Node, probe func(context.Context, *transport.Client) error) bool {
	return ctx.Err() == nil && transport.NeverSent(probe(ctx, rep.Value))
}
