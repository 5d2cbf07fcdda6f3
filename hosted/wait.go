package hosted

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// WaitOptions controls how Wait polls a job. The zero value polls with the
// defaults and waits until the context ends.
type WaitOptions struct {
	// MinDelay is the first delay between polls (default 500 ms).
	MinDelay time.Duration
	// MaxDelay caps the delay between polls (default 15 s).
	MaxDelay time.Duration
	// MaxWait bounds the whole wait; 0 waits until the context ends. When
	// it runs out Wait returns a *WaitTimeoutError with the last record.
	MaxWait time.Duration
	// OnProgress, if set, receives every record fetched, terminal or not.
	// It runs on the waiting goroutine; keep it quick.
	OnProgress func(*Job)
}

const (
	defaultMinPollDelay = 500 * time.Millisecond
	defaultMaxPollDelay = 15 * time.Second
)

func (o WaitOptions) validate() apierr.FieldErrors {
	var fe apierr.FieldErrors
	if o.MinDelay < 0 {
		fe.Add("MinDelay", "must not be negative, got %s", o.MinDelay)
	}
	if o.MaxDelay < 0 {
		fe.Add("MaxDelay", "must not be negative, got %s", o.MaxDelay)
	}
	if o.MinDelay > 0 && o.MaxDelay > 0 && o.MaxDelay < o.MinDelay {
		fe.Add("MaxDelay", "must be at least MinDelay (%s), got %s", o.MinDelay, o.MaxDelay)
	}
	if o.MaxWait < 0 {
		fe.Add("MaxWait", "must not be negative, got %s", o.MaxWait)
	}
	return fe
}

func (o WaitOptions) withDefaults() WaitOptions {
	if o.MinDelay == 0 {
		o.MinDelay = defaultMinPollDelay
	}
	if o.MaxDelay == 0 {
		o.MaxDelay = defaultMaxPollDelay
	}
	if o.MaxDelay < o.MinDelay {
		o.MaxDelay = o.MinDelay
	}
	return o
}

// Wait polls the job until it is terminal and returns the COMPLETED record.
// A FAILED or REJECTED job is returned as a *JobError (which still carries
// the record); a MaxWait that runs out as a *WaitTimeoutError. Cancelling
// ctx stops the wait at once with ctx's error. A nil opts uses the client's
// polling defaults (see WithPolling).
//
// Delays grow exponentially from MinDelay to MaxDelay with jitter, and the
// last one is trimmed so the wait never overruns MaxWait or ctx's deadline.
func (c *Client) Wait(ctx context.Context, jobID string, opts *WaitOptions) (*Job, error) {
	if ctx == nil {
		return nil, errors.New("hosted: Wait: nil context")
	}
	o := c.wait
	if opts != nil {
		o = *opts
	}
	if fe := o.validate(); len(fe) > 0 {
		return nil, fe.Err()
	}
	o = o.withDefaults()

	start := time.Now()
	var deadline time.Time
	if o.MaxWait > 0 {
		deadline = start.Add(o.MaxWait)
	}
	ctxDeadline := false
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline, ctxDeadline = d, true
	}

	var last *Job
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for attempt := 0; ; attempt++ {
		job, err := c.GetJob(ctx, jobID)
		if err != nil {
			return nil, err
		}
		last = job
		if o.OnProgress != nil {
			o.OnProgress(job)
		}
		switch {
		case job.Status == StatusCompleted:
			return job, nil
		case job.Status.Terminal():
			return job, &JobError{Job: job}
		}

		delay := computeDelay(attempt, o.MinDelay, o.MaxDelay, remaining(deadline))
		if delay <= 0 {
			if ctxDeadline {
				// The context's own deadline ran out: report it as such
				// (ctx.Done is due now, if it has not fired yet).
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return nil, &WaitTimeoutError{JobID: jobID, LastJob: last, Waited: time.Since(start)}
		}
		timer.Reset(delay)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// remaining is the time left before deadline: -1 for no deadline, and 0
// (not a negative value, which would mean "none") once it has passed.
func remaining(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return -1
	}
	return max(time.Until(deadline), 0)
}

// computeDelay returns how long to wait before poll attempt+1: an
// exponential delay minDelay*2^attempt capped at maxDelay, with jitter
// drawn uniformly from its upper half, trimmed to remaining. remaining < 0
// means no deadline; a result <= 0 means no time is left to wait.
func computeDelay(attempt int, minDelay, maxDelay, remaining time.Duration) time.Duration {
	if remaining == 0 {
		return 0
	}
	d := maxDelay
	if attempt < 62 {
		if exp := minDelay << attempt; exp > 0 && exp < maxDelay {
			d = exp
		}
	}
	// Equal jitter keeps at least half the delay so pollers spread out
	// without hammering the service early.
	if half := d / 2; half > 0 {
		d = half + rand.N(half+1)
	}
	if remaining > 0 && d > remaining {
		d = remaining
	}
	return d
}
