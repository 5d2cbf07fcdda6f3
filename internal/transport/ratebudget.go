package transport

import (
	"log/slog"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/ratelimit"
)

// Budget returns the client's rate budget (Options.RateBudget), nil when
// it has none.
func (c *Client) Budget() *ratelimit.Budget { return c.budget }

// Rate returns the requests per second the client's rate budget allows
// now, 0 when it has none.
func (c *Client) Rate() float64 {
	if c.budget == nil {
		return 0
	}
	return c.budget.Rate()
}

// budgeted reports whether a request of cl, one attempt or redirect hop,
// spends the rate budget: one sent to the API's origin by Do or DoJSON,
// or by DoExternal with Options.BudgetExternal. Other DoExternal requests
// (pre-signed uploads and downloads) and requests to another origin do
// not.
func (cl *call) budgeted(r *http.Request) bool {
	return (!cl.external || cl.c.budgetExternal) && originOf(r.URL) == cl.c.authOrigin
}

// admit waits for the rate budget's slot of an attempt's first hop (req),
// before the attempt starts (requestHook): the observer's attempt and the
// logs' duration measure the request, not the client's own queue. The
// ticket, or the context's error that ended the wait, is the first hop's
// (see roundTripBudgeted).
func (cl *call) admit(req *http.Request) {
	cl.admitted = false
	if b := cl.c.budget; b != nil && cl.budgeted(req) {
		cl.ticket, cl.admitErr = b.Wait(req.Context())
		cl.admitted = true
	}
}

// roundTripBudgeted is roundTrip under the rate budget b: it waits for a
// slot first, unless admit did for this hop (the attempt fails with the
// context's error if the context ends meanwhile; no retry follows), and
// reports the answer's status and Retry-After, capped at MaxRetryAfter,
// to b.
func (cl *call) roundTripBudgeted(b *ratelimit.Budget, rt http.RoundTripper, r *http.Request) (*http.Response, error) {
	tk, err := cl.ticket, cl.admitErr
	if !cl.admitted {
		tk, err = b.Wait(r.Context()) // a redirect hop
	}
	cl.admitted, cl.admitErr = false, nil
	if err != nil {
		return nil, err
	}
	resp, err := cl.roundTrip(rt, r)
	if err == nil {
		ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), cl.c.now())
		ra = min(ra, cl.c.maxRetryAfter)
		if rate := b.Done(tk, resp.StatusCode, ra, ok); rate > 0 && cl.c.logger != nil {
			cl.c.logger.LogAttrs(cl.ctx, slog.LevelWarn, "pfc: rate budget cut after a 429",
				cl.logAttrs(slog.Float64("rate", rate), slog.Duration("hold", ra))...)
		}
	}
	return resp, err
}
