package bgcontainer

import (
	"context"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
)

// jobSubmitted reports the job SubmitImage submitted to the observer, if
// any.
func (c *Client) jobSubmitted(ctx context.Context, job *Job) {
	if o := c.http.Observer(); o != nil {
		o.JobUpdate(ctx, &pfc.JobUpdate{API: "bgcontainer", JobID: c.redact(job.ProcessID), Status: knownStatus(job.Status), Submitted: true})
	}
}

// jobSeen reports r to the observer, if any, when its status is not prev
// (the status the wait saw last, "" for none); it returns the status to
// compare the next one with.
func (c *Client) jobSeen(ctx context.Context, processID string, prev JobStatus, r *CheckResult) JobStatus {
	o := c.http.Observer()
	if o == nil || strings.EqualFold(string(r.Status), string(prev)) {
		return r.Status
	}
	st := knownStatus(r.Status)
	u := &pfc.JobUpdate{API: "bgcontainer", JobID: c.redact(processID), Status: st,
		Terminal: r.Status.Terminal(), Failed: r.Status.Terminal() && st != string(StatusCompleted)}
	if prev != "" {
		u.Previous = knownStatus(prev)
	}
	if r.HasProcessingTime && r.ProcessingTime > 0 && r.ProcessingTime < 1e6*time.Hour {
		u.ProcessingTime = r.ProcessingTime
	}
	o.JobUpdate(ctx, u)
	return r.Status
}

// knownStatus is s, in lower case, when the API documentation lists it,
// else "other": a status is a metric label, and the service's text is not
// trusted.
func knownStatus(s JobStatus) string {
	switch l := JobStatus(strings.ToLower(string(s))); l {
	case StatusQueued, StatusProcessing, StatusCompleted, StatusFailed:
		return string(l)
	}
	return "other"
}
