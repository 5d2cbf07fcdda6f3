package transport

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/observe"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Observer is the client's pfc.Observer; nil when none is set (or c is
// nil).
func (c *Client) Observer() pfc.Observer {
	if c == nil {
		return nil
	}
	return c.obs
}

// StartOp begins a flow (observe.KindFlow) named name, for the observer
// and the logs; see observe.Start. Pass what it returns to EndOp.
func (c *Client) StartOp(ctx context.Context, name string) (context.Context, *pfc.Operation) {
	if c == nil {
		return ctx, nil
	}
	return observe.Start(ctx, c.obs, c.logger != nil, observe.KindFlow, name)
}

// EndOp reports the end of op (nil: nothing) with err.
func (c *Client) EndOp(ctx context.Context, op *pfc.Operation, err error) {
	if c == nil {
		return
	}
	observe.End(ctx, c.obs, op, err)
}

// traceHeaders are the W3C trace context (and baggage) headers an
// observer may add to a request to the service; a redirect hop that
// leaves the service's origin loses them, and every other header the
// observer added (call.obsHeaders; see stripHop).
var traceHeaders = []string{"Traceparent", "Tracestate", "Baggage"}

// startAttempt reports attempt cl.attempts to the observer, after the
// retry wait that preceded it, if any. req is the attempt's request.
func (cl *call) startAttempt(req *http.Request, now time.Time) {
	cl.endWait(now)
	// The host comes from the service (a pre-signed URL's): redacted.
	a := &pfc.Attempt{Method: cl.method, Route: cl.route, Server: cl.c.Redact(cl.u.Host), Number: cl.attempts, Start: now}
	if cl.external && echoesQuery(cl.u) {
		a.Server = cl.redact(a.Server)
	}
	if !cl.external {
		// A header of its own: the observer never sees the request's,
		// which holds the credential.
		a.Header = http.Header{}
	}
	// What the observer added to an earlier attempt is not this one's
	// (a retry's trace context is its own; a sampler may add none).
	for _, k := range cl.obsHeaders {
		delete(req.Header, k)
	}
	cl.actx = cl.c.obs.StartAttempt(cl.ctx, a)
	if cl.actx == nil {
		cl.actx = cl.ctx
	}
	for k, v := range a.Header {
		if cl.c.authHeader == "" || !strings.EqualFold(k, cl.c.authHeader) {
			k = http.CanonicalHeaderKey(k)
			req.Header[k] = v
			// Any propagator's headers (B3, Jaeger, ...), not only
			// traceHeaders: a hop off the service's origin loses them.
			if !slices.Contains(cl.obsHeaders, k) {
				cl.obsHeaders = append(cl.obsHeaders, k)
			}
		}
	}
	a.Header = nil
	cl.att = a
}

// endAttempt reports the end of the attempt under way, answered with
// resp or failed with err.
func (cl *call) endAttempt(resp *http.Response, err error) {
	a := cl.att
	if a == nil {
		return
	}
	cl.att = nil
	a.Duration = time.Since(a.Start)
	if resp != nil {
		a.Status = resp.StatusCode
		// Not a storage provider's: redacting it would build the
		// redactor of the pre-signed URL's values (see call.redact), a
		// cost an error alone should pay.
		if !cl.external {
			a.RequestID = apierr.RequestID(resp.Header, cl.redact)
		}
	}
	if err != nil {
		a.Err = cl.wrapErr(err) // its text redacted, as the call's error is
	}
	cl.c.obs.EndAttempt(cl.actx, a)
	cl.actx = nil
}

// startWait records the wait before a retry, reported when it ends.
func (cl *call) startWait(resp *http.Response, err error, fromServer bool) {
	w := &pfc.RetryWait{Attempt: cl.attempts, RetryAfter: fromServer, Start: time.Now(), Reason: retryReason(resp, err)}
	if resp != nil {
		w.Status = resp.StatusCode
	}
	cl.wait = w
}

// endWait reports the wait recorded by startWait, if any, as over.
func (cl *call) endWait(now time.Time) {
	if w := cl.wait; w != nil {
		cl.wait = nil
		w.Duration = now.Sub(w.Start)
		cl.c.obs.RetryWait(cl.ctx, w)
	}
}

// retryReason is pfc.RetryWait.Reason for an attempt's outcome.
func retryReason(resp *http.Response, err error) string {
	switch {
	case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
		return "rate limited"
	case resp != nil && resp.StatusCode == http.StatusRequestTimeout:
		return "request timeout"
	case resp != nil:
		return "server error"
	case errors.Is(err, apierr.ErrResponseHeaderTimeout):
		return "response header timeout"
	case errors.Is(err, apierr.ErrTruncatedResponse):
		return "truncated response"
	}
	return "connection error"
}
