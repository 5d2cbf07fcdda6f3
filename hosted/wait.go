package hosted

import (
	"context"
	"errors"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

const (
	defaultMinPollDelay = 500 * time.Millisecond
	defaultMaxPollDelay = 15 * time.Second
)

// pollOf converts o to the shared wait loop's options.
func pollOf(o pfc.WaitOptions) poll.Options {
	return clientopt.Poll(config.Wait(o), func(v any) (string, string) {
		if j, ok := v.(*Job); ok {
			return j.ID, string(j.Status)
		}
		return "", ""
	})
}

// Wait polls the job until it is terminal and returns the COMPLETED record
// (nil opts: the client's WithPolling). A FAILED or REJECTED job gives a
// *JobError carrying the record; a MaxWait that runs out, even during a
// poll, a *pfc.WaitTimeoutError; a record of another job GetJob's
// *pfc.ResponseError. Cancelling ctx ends the wait at once with
// ctx's error. The last delay is trimmed so that the wait never overruns
// MaxWait or ctx's deadline.
func (c *Client) Wait(ctx context.Context, jobID string, opts *pfc.WaitOptions) (_ *Job, err error) {
	if ctx == nil {
		return nil, errors.New("pfc: Wait: nil context")
	}
	o := c.pollDefaults
	if opts != nil {
		o = pollOf(*opts)
	}
	if fe := o.Validate(); len(fe) > 0 {
		return nil, fe.Err()
	}
	return c.wait(ctx, jobID, o)
}

// wait is Wait with checked options.
func (c *Client) wait(ctx context.Context, jobID string, o poll.Options) (*Job, error) {
	o = o.WithDefaults(defaultMinPollDelay, defaultMaxPollDelay)

	var seen JobStatus
	job, err := poll.Until(ctx, o, func(ctx context.Context) (*Job, bool, error) {
		job, err := c.GetJob(ctx, jobID)
		if err != nil {
			return nil, false, err
		}
		seen = c.jobSeen(ctx, jobID, seen, job)
		return job, job.Status.Terminal(), nil
	})
	switch {
	case err != nil:
		return nil, c.waitError(jobID, job, err)
	case job.Status != StatusCompleted:
		return job, &JobError{Job: job, redact: c.http.Redact}
	}
	return job, nil
}

// waitError is err, the error of a wait for jobID, as Wait returns it: a
// *pfc.WaitTimeoutError when MaxWait ran out. (A function of its own, so
// that the target of errors.As is not allocated on every wait.)
func (c *Client) waitError(jobID string, last *Job, err error) error {
	var te *poll.TimeoutError
	if errors.As(err, &te) {
		return c.waitTimeout(jobID, last, te.Waited)
	}
	return err
}

// waitTimeout is the *pfc.WaitTimeoutError of a wait for jobID that ran
// out after waited; last is the last record seen (nil: none).
func (c *Client) waitTimeout(jobID string, last *Job, waited time.Duration) error {
	e := &pfc.WaitTimeoutError{JobID: c.quote(jobID, apierr.MaxQuotedMessage), Waited: waited}
	if last != nil {
		e.Last, e.Status = last, c.quote(string(last.Status), apierr.MaxQuotedValue)
	}
	return e
}
