package hosted

import (
	"context"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
)

// jobSubmitted reports the job StartJob started to the observer, if any.
func (c *Client) jobSubmitted(ctx context.Context, jobID string) {
	if o := c.http.Observer(); o != nil {
		o.JobUpdate(ctx, &pfc.JobUpdate{API: "hosted", JobID: c.http.Redact(jobID), Status: "submitted", Submitted: true})
	}
}

// jobSeen reports job to the observer, if any, when its status is not
// prev (the status the wait saw last, "" for none); it returns the status
// to compare the next one with.
func (c *Client) jobSeen(ctx context.Context, jobID string, prev JobStatus, job *Job) JobStatus {
	o := c.http.Observer()
	if o == nil || job.Status == prev {
		return job.Status
	}
	u := &pfc.JobUpdate{API: "hosted", JobID: c.http.Redact(jobID), Status: knownStatus(job.Status),
		Terminal: job.Status.Terminal(), Failed: job.Status.Terminal() && job.Status != StatusCompleted}
	if prev != "" {
		u.Previous = knownStatus(prev)
	}
	if t := job.TimeTaken; t != nil && *t > 0 && *t < 1e9 {
		u.ProcessingTime = time.Duration(*t * float64(time.Second))
	}
	o.JobUpdate(ctx, u)
	return job.Status
}

// knownStatus is s when the API documentation lists it, else "other": a
// status is a metric label, and the service's text is not trusted.
func knownStatus(s JobStatus) string {
	switch s {
	case StatusPending, StatusProcessing, StatusCompleted, StatusFailed, StatusRejected:
		return string(s)
	}
	return "other"
}
