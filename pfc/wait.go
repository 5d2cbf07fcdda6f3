package pfc

import "time"

// WaitOptions controls how a client polls a job (hosted Wait, bgcontainer
// WaitImage, and the one-call flows). The zero value polls with the
// client's defaults and waits until the context ends. Delays grow
// exponentially from MinDelay to MaxDelay with jitter; the last one is
// trimmed so that the wait never overruns MaxWait or the context's
// deadline.
type WaitOptions struct {
	// MinDelay is the first delay between polls (default: hosted 500 ms,
	// bgcontainer 250 ms).
	MinDelay time.Duration
	// MaxDelay caps the delay between polls (default: hosted 15 s,
	// bgcontainer 5 s). A finished job is noticed at most about MaxDelay
	// late.
	MaxDelay time.Duration
	// MaxWait bounds the whole wait, a poll in flight included; 0 waits
	// until the context ends. When it runs out the wait returns a
	// *WaitTimeoutError.
	MaxWait time.Duration
	// OnProgress, if set, receives the job id and status of every record
	// polled, terminal or not, on the waiting goroutine: keep it quick.
	OnProgress func(jobID, status string)
}
