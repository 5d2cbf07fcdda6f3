package bgcontainer

import (
	"context"
	"errors"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// replica is one container instance of the client's list.
type replica = replicas.Replica[*transport.Client]

// pinKey carries the replica a flow runs on (see pin).
type pinKey struct{}

// pin makes every call under ctx go to r: a flow's submit, activation,
// polls, download and removal stay on one replica.
func pin(ctx context.Context, r *replica) context.Context {
	return context.WithValue(ctx, pinKey{}, r)
}

func pinned(ctx context.Context) *replica {
	r, _ := ctx.Value(pinKey{}).(*replica)
	return r
}

// noteKey carries a *note: where the last call under ctx went.
type noteKey struct{}

// note is filled by send: the replica of the last call and whether that
// call provably never reached it.
type note struct {
	rep       *replica
	neverSent bool
}

func withNote(ctx context.Context) (context.Context, *note) {
	n := &note{}
	return context.WithValue(ctx, noteKey{}, n), n
}

// fleet reports whether the client has several replicas.
func (c *Client) fleet() bool { return len(c.reps.All()) > 1 }

// route sends r to its replica: the pinned one, the one holding
// processID, or (new work, Status) the least busy one, moving to another
// only when the request provably never reached the first.
func (c *Client) route(ctx context.Context, ep Endpoint, processID string, r *transport.Request) (*http.Response, error) {
	if rep := pinned(ctx); rep != nil {
		return c.sendTo(ctx, rep, ep, r)
	}
	if processID != "" {
		if rep, ok := c.reps.Lookup(processID); ok {
			return c.sendTo(ctx, rep, ep, r)
		}
		if c.fleet() {
			return c.locate(ctx, ep, processID, r)
		}
		return c.sendTo(ctx, c.reps.First(), ep, r)
	}
	var tried []*replica
	for {
		rep := c.reps.Pick(tried...)
		rr := *r
		more := len(tried)+1 < len(c.reps.All())
		rr.FailOver = rr.FailOver || more
		landed := false
		if rr.RetriedAfterLanding == nil {
			rr.RetriedAfterLanding = &landed
		}
		resp, err := c.sendTo(ctx, rep, ep, &rr)
		c.reps.Release(rep)
		if err == nil || !more || !transport.NeverSent(err) || *rr.RetriedAfterLanding || ctx.Err() != nil {
			return resp, err
		}
		tried = append(tried, rep)
	}
}

// locate sends a call about a job this client did not submit (or has
// forgotten) to each replica in turn until one knows the job: the calls
// are GET and DELETE of one process id, and a replica that does not hold
// it answers 404 without side effect. The replica found is remembered.
func (c *Client) locate(ctx context.Context, ep Endpoint, processID string, r *transport.Request) (*http.Response, error) {
	var (
		resp *http.Response
		err  error
	)
	for _, rep := range c.reps.All() {
		resp, err = c.sendTo(ctx, rep, ep, r)
		var ae *apierr.APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound {
			continue
		}
		if err == nil || (!transport.NeverSent(err) && ctx.Err() == nil) {
			c.reps.Bind(processID, rep)
			return resp, err
		}
	}
	return resp, err
}

// sendTo sends r to rep, counts it in flight, records its outcome for the
// replica's health and in ctx's note. A replica already set aside gets one
// attempt, not retries, when the call provably never reaches it.
func (c *Client) sendTo(ctx context.Context, rep *replica, ep Endpoint, r *transport.Request) (*http.Response, error) {
	fleet := c.fleet()
	if fleet {
		c.reps.Acquire(rep)
		defer c.reps.Release(rep)
		if !c.reps.Healthy(rep) {
			rr := *r
			rr.FailOver = true
			r = &rr
		}
	}
	resp, err := rep.Value.Do(ctx, r)
	never := transport.NeverSent(err)
	if n, ok := ctx.Value(noteKey{}).(*note); ok {
		n.rep, n.neverSent = rep, never
	}
	if fleet && ctx.Err() == nil {
		var ae *apierr.APIError
		switch {
		case never:
			c.reps.Failed(rep)
		case errors.As(err, &ae) && ae.StatusCode >= 500 && ae.StatusCode != http.StatusNotImplemented &&
			!(ep == EndpointDownloadImage && ae.StatusCode == http.StatusInternalServerError):
			c.reps.Failed(rep)
		default:
			c.reps.Succeeded(rep)
		}
	}
	return resp, err
}

// probe is the health check of a replica set aside: GET /Status.
func probe(ctx context.Context, tc *transport.Client) error {
	resp, err := tc.Do(ctx, &transport.Request{Path: "Status", Header: jsonHeader(), FailOver: true, BufferBody: true, BufferLimit: maxJSONBody})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// unreachable reports whether rep is down: a GET /Status, sent once,
// never reaches it.
func (c *Client) unreachable(ctx context.Context, rep *replica) bool {
	if ctx.Err() != nil {
		return false
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultCleanupTimeout)
	defer cancel()
	return transport.NeverSent(probe(pctx, rep.Value))
}
