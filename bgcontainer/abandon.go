package bgcontainer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// leftJob is a job a flow left on a lost replica, being removed.
type leftJob struct {
	res *Result
	rep *replica
	// landed: an earlier attempt may have reached the replica, so a 404
	// may be that attempt's removal, its answer lost.
	landed bool
	last   error // the last attempt's error
}

// removeLeft removes the jobs of jobs (runs on lost replicas), each on
// its own replica, setting their Result's Removed or RemoveErr. It tries
// each job at once and, while its replica still does not answer (a call
// that never reaches it or gets no answer in time, a 5xx, a 429, a
// connection cut), again after the client's retry delays
// (pfc.WithRetries), for at most timeout. The wait for a replica to come
// back ends with ctx; the first attempt, and one more when ctx ended
// during the wait, run on a context of their own (the caller's values,
// not its cancellation), so a failed or cancelled flow still tries once
// after it ended.
func (c *Client) removeLeft(ctx context.Context, jobs []*leftJob, timeout time.Duration) {
	if len(jobs) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	// One round at once, on the cleanup's context: it also runs after the
	// caller's ctx ended.
	pending := c.removeRound(cctx, jobs)
	if len(pending) > 0 && ctx.Err() == nil {
		// Then wait for the replicas to come back, ending with ctx.
		wctx, stop := context.WithCancel(cctx)
		defer stop()
		defer context.AfterFunc(ctx, stop)()
		o := c.retry
		if o.Clock != nil {
			o.MaxWait = timeout // tests: the bound runs out on their clock
		}
		_, _ = poll.Until(wctx, o, func(ctx context.Context) (struct{}, bool, error) {
			if len(pending) > 0 && ctx.Err() == nil {
				pending = c.removeRound(ctx, pending)
			}
			return struct{}{}, len(pending) == 0, nil
		})
		if len(pending) > 0 && ctx.Err() != nil && cctx.Err() == nil {
			// The call ended while a replica was away (the wait runs
			// alongside the redo): one last try, as the removal of a
			// call that had already ended makes.
			pending = c.removeRound(cctx, pending)
		}
	}
	why, cause := fmt.Sprintf("not removed within %s", timeout), context.DeadlineExceeded
	if err := ctx.Err(); err != nil {
		why, cause = "not removed before the call ended", err // the caller's context ended the wait
	}
	for _, j := range pending {
		j.res.Removed = nil
		j.res.RemoveErr = fmt.Errorf("pfc: job %s left on replica %s: %s (%w): %w",
			c.quote(j.res.Job.ProcessID, apierr.MaxQuotedID), c.redact(j.rep.URL), why, cause, j.last)
	}
}

// removeRound tries once to remove each job of jobs and returns those
// whose replica did not answer yet.
func (c *Client) removeRound(ctx context.Context, jobs []*leftJob) (pending []*leftJob) {
	for _, j := range jobs {
		d, err := c.pinned(j.rep).RemoveImage(ctx, j.res.Job.ProcessID)
		var ae *pfc.APIError
		switch {
		case err == nil:
			j.res.Removed, j.res.RemoveErr = d, nil
		case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && j.landed:
			// An earlier attempt removed it; its answer was lost.
			j.res.Removed = &DeleteResult{Status: "deleted", ProcessID: j.res.Job.ProcessID, AnswerLost: true}
			j.res.RemoveErr = nil
		case errors.As(err, &ae) && ae.StatusCode < 500 && ae.StatusCode != http.StatusTooManyRequests:
			// The replica answered: this is why the job was not removed
			// (404: it no longer holds it).
			j.res.RemoveErr = err
		case errors.Is(err, pfc.ErrInvalidParameter) || errors.Is(err, pfc.ErrInvalidResponse):
			// Not the replica being away: trying again changes nothing.
			j.res.RemoveErr = err
		default: // not reached, 5xx, 429, cut off, or out of time
			j.last = err
			j.landed = j.landed || !transport.NeverSent(err)
			pending = append(pending, j)
		}
	}
	return pending
}
