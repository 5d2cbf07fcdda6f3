package hosted

import (
	"errors"
	"fmt"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// ErrJobRejected is matched by the *JobError of a REJECTED job (with
// pfc.ErrJobFailed, which every failed or rejected job matches).
var ErrJobRejected = errors.New("pfc: job rejected")

// JobError reports a job that ended FAILED or REJECTED. It matches
// pfc.ErrJobFailed, and ErrJobRejected for a rejected job.
type JobError struct {
	Job *Job // the terminal job record, as the service sent it

	redact func(string) string // the client's redactor; nil: none
}

// Error returns "pfc: job <id> <status> (code <code>)[: <statusText>]" on
// one line, cut to 300 bytes. Text from the service is redacted: a
// statusText that echoes the API key does not put it in the message.
func (e *JobError) Error() string {
	if e.Job == nil {
		return "pfc: job failed"
	}
	msg := fmt.Sprintf("pfc: job %s %s (code %d)", e.Job.ID, e.Job.Status, e.Job.Code)
	if e.Job.StatusText != "" {
		msg += ": " + e.Job.StatusText
	}
	if e.redact != nil {
		msg = e.redact(msg)
	}
	return oneLine(msg, apierr.MaxQuotedLine)
}

// Unwrap returns pfc.ErrJobFailed, and ErrJobRejected for a REJECTED job.
func (e *JobError) Unwrap() []error {
	if e.Job != nil && e.Job.Status == StatusRejected {
		return []error{pfc.ErrJobFailed, ErrJobRejected}
	}
	return []error{pfc.ErrJobFailed}
}

// oneLine collapses whitespace runs (newlines included) into single spaces
// and cuts s to at most max bytes on a rune boundary, marking a cut with
// "…". It does not redact: use it on text already redacted.
func oneLine(s string, max int) string { return apierr.Excerpt(nil, s, max) }
