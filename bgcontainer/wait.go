package bgcontainer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
)

// WaitOptions controls how WaitImage polls CheckImage. The zero value
// polls with the defaults and waits until the context ends.
type WaitOptions struct {
	// MinDelay is the first delay between polls (default 250 ms).
	MinDelay time.Duration
	// MaxDelay caps the delay between polls (default 5 s).
	MaxDelay time.Duration
	// MaxWait bounds the whole wait, a poll in flight included; 0 waits
	// until the context ends. When it runs out WaitImage returns a
	// *WaitTimeoutError with the last state seen.
	MaxWait time.Duration
	// OnProgress, if set, receives every state fetched, terminal or not.
	// It runs on the waiting goroutine; keep it quick.
	OnProgress func(*CheckResult)
}

// Defaults of WaitOptions: the container is local and processes an image
// in seconds.
const (
	DefaultMinPollDelay = 250 * time.Millisecond
	DefaultMaxPollDelay = 5 * time.Second
)

// pollOptions converts o to the shared wait loop's options.
func (o WaitOptions) pollOptions() poll.Options {
	p := poll.Options{MinDelay: o.MinDelay, MaxDelay: o.MaxDelay, MaxWait: o.MaxWait}
	if fn := o.OnProgress; fn != nil {
		p.OnProgress = func(v any) {
			if r, ok := v.(*CheckResult); ok {
				fn(r)
			}
		}
	}
	return p
}

// ErrWaitTimeout is matched by a *WaitTimeoutError.
var ErrWaitTimeout = errors.New("pfc: gave up waiting for the job")

// WaitTimeoutError reports that a job was not completed or failed when
// WaitOptions.MaxWait ran out. A cancelled or expired context is reported
// as the context's own error instead. It matches ErrWaitTimeout.
type WaitTimeoutError struct {
	// ProcessID is the job waited for.
	ProcessID string
	// Last is the last state seen; nil if no poll succeeded.
	Last *CheckResult
	// Waited is how long the wait lasted.
	Waited time.Duration

	// state is Last's status, redacted and cut, as Error quotes it.
	state string
}

// Error says which job was still in which state after how long. The
// state is the container's text, redacted.
func (e *WaitTimeoutError) Error() string {
	state := e.state
	if state == "" {
		state = "unknown"
		if e.Last != nil {
			state = apierr.Excerpt(nil, string(e.Last.Status), apierr.MaxQuotedValue)
		}
	}
	return fmt.Sprintf("pfc: job %s still %s after %s", apierr.Excerpt(nil, e.ProcessID, apierr.MaxQuotedID), state, e.Waited.Round(time.Millisecond))
}

// Unwrap returns ErrWaitTimeout.
func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }

// JobError reports a job that ended failed. It matches ErrProcessingFailed.
type JobError struct {
	// Result is the terminal state, with the container's Error text.
	Result *CheckResult
	// message is the redacted text of Error.
	message string
}

// Error returns "pfc: job <id> failed: <error text>".
func (e *JobError) Error() string {
	if e.message != "" {
		return e.message
	}
	return "pfc: job failed"
}

// Unwrap returns ErrProcessingFailed.
func (e *JobError) Unwrap() error { return ErrProcessingFailed }

func (c *Client) jobError(r *CheckResult) *JobError {
	msg := "pfc: job " + c.quote(r.ProcessID, apierr.MaxQuotedID) + " failed"
	if r.Error != "" {
		msg += ": " + c.quote(r.Error, apierr.MaxQuotedMessage)
	}
	return &JobError{Result: r, message: msg}
}

// WaitImage polls CheckImage until the job is completed or failed and
// returns the completed state. A failed job is returned with a *JobError
// (matching ErrProcessingFailed); a MaxWait that runs out gives a
// *WaitTimeoutError, also when it runs out during a poll. Cancelling ctx
// stops the wait at once with ctx's error. A nil opts uses the client's
// defaults (see WithPolling).
//
// Delays grow exponentially from MinDelay to MaxDelay with jitter (the
// shared backoff of every pfc-go client), and the last one is trimmed so
// the wait never overruns MaxWait or ctx's deadline.
func (c *Client) WaitImage(ctx context.Context, processID string, opts *WaitOptions) (_ *CheckResult, err error) {
	defer exportTo(&err)
	if ctx == nil {
		return nil, errNilContext()
	}
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	o := c.wait
	if opts != nil {
		o = opts.pollOptions()
	}
	if fe := o.Validate(); len(fe) > 0 {
		return nil, fe.Err()
	}
	o = o.WithDefaults(DefaultMinPollDelay, DefaultMaxPollDelay)
	r, err := poll.Until(ctx, o, func(ctx context.Context) (*CheckResult, bool, error) {
		r, err := c.CheckImage(ctx, processID)
		if err != nil {
			return nil, false, err
		}
		return r, r.Status.Terminal(), nil
	})
	var te *poll.TimeoutError
	switch {
	case errors.As(err, &te):
		e := &WaitTimeoutError{ProcessID: processID, Last: r, Waited: te.Waited}
		if r != nil {
			e.state = c.quote(string(r.Status), apierr.MaxQuotedValue)
		}
		return nil, e
	case err != nil:
		return nil, err
	case strings.EqualFold(string(r.Status), string(StatusFailed)):
		return r, c.jobError(r)
	}
	return r, nil
}
