package bgcontainer

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Defaults of pfc.WaitOptions: the container is local and processes an image
// in seconds.
const (
	defaultMinPollDelay = 250 * time.Millisecond
	defaultMaxPollDelay = 5 * time.Second
)

// pollOf converts o to the shared wait loop's options.
func pollOf(o pfc.WaitOptions) poll.Options {
	return clientopt.Poll(config.Wait(o), func(v any) (string, string) {
		if r, ok := v.(*CheckResult); ok {
			return r.ProcessID, string(r.Status)
		}
		return "", ""
	})
}

// JobError reports a job that ended failed. It matches pfc.ErrJobFailed.
type JobError struct {
	// Result is the terminal state, with the container's Error text.
	Result *CheckResult
	// message is the redacted text of Error.
	message string
}

// Error returns "pfc: job <id> failed[: <error text>]".
func (e *JobError) Error() string {
	if e.message != "" {
		return e.message
	}
	return "pfc: job failed"
}

// Unwrap returns pfc.ErrJobFailed.
func (e *JobError) Unwrap() error { return pfc.ErrJobFailed }

func (c *Client) jobError(r *CheckResult) *JobError {
	msg := "pfc: job " + c.quote(r.ProcessID, apierr.MaxQuotedID) + " failed"
	if r.Error != "" {
		msg += ": " + c.quote(r.Error, apierr.MaxQuotedMessage)
	}
	return &JobError{Result: r, message: msg}
}

// WaitImage polls CheckImage until the job is completed or failed and
// returns the completed state. A failed job is returned with a *JobError
// (matching pfc.ErrJobFailed); a MaxWait that runs out gives a
// *pfc.WaitTimeoutError, also when it runs out during a poll. Cancelling ctx
// stops the wait at once with ctx's error. A nil opts uses the client's
// defaults (see WithPolling).
//
// Delays grow exponentially from MinDelay to MaxDelay with jitter (the
// shared backoff of every pfc-go client), and the last one is trimmed so
// the wait never overruns MaxWait or ctx's deadline.
func (c *Client) WaitImage(ctx context.Context, processID string, opts *pfc.WaitOptions) (_ *CheckResult, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	o := c.wait
	if opts != nil {
		o = pollOf(*opts)
	}
	if fe := o.Validate(); len(fe) > 0 {
		return nil, fe.Err()
	}
	o = o.WithDefaults(defaultMinPollDelay, defaultMaxPollDelay)
	var seen JobStatus
	r, err := poll.Until(ctx, o, func(ctx context.Context) (*CheckResult, bool, error) {
		r, err := c.CheckImage(ctx, processID)
		if err != nil {
			return nil, false, err
		}
		seen = c.jobSeen(ctx, processID, seen, r)
		return r, r.Status.Terminal(), nil
	})
	var te *poll.TimeoutError
	switch {
	case errors.As(err, &te):
		return nil, c.waitTimeout(processID, r, te.Waited)
	case err != nil:
		return nil, err
	case strings.EqualFold(string(r.Status), string(StatusFailed)):
		return r, c.jobError(r)
	}
	return r, nil
}

// waitTimeout is the *pfc.WaitTimeoutError of a wait for processID that
// ran out after waited; last is the last state seen (nil: none).
func (c *Client) waitTimeout(processID string, last *CheckResult, waited time.Duration) error {
	e := &pfc.WaitTimeoutError{JobID: c.quote(processID, apierr.MaxQuotedID), Waited: waited}
	if last != nil {
		e.Last, e.Status = last, c.quote(string(last.Status), apierr.MaxQuotedValue)
	}
	return e
}
