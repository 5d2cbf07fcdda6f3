package pfc

import (
	"context"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/config"
)

// Observer sees what a client does: each flow, bulk run and bulk item
// (Operation), each HTTP attempt, each wait before a retry and each change
// of a job's status. Set it with WithObserver; without one nothing is
// reported and nothing is measured. Its methods run on the calling
// goroutine, concurrently for concurrent calls: keep them quick. Embed
// NopObserver in an implementation, so that methods added to Observer
// later have a default. Every string an event carries is redacted; Route
// is a template, never a path with ids. The module
// github.com/pfcsdk/pfc-go/contrib/pfcotel implements it for OpenTelemetry.
type Observer interface {
	// StartOperation is called when op begins and returns the context of
	// its work (ctx, or one carrying the observer's span); EndOperation
	// receives that context once op has ended.
	StartOperation(ctx context.Context, op *Operation) context.Context
	// EndOperation is called once per StartOperation, with the outcome.
	EndOperation(ctx context.Context, op *Operation)
	// StartAttempt is called before each HTTP attempt; EndAttempt
	// receives the context it returns once the answer's headers arrived
	// or the attempt failed.
	StartAttempt(ctx context.Context, a *Attempt) context.Context
	// EndAttempt is called once per StartAttempt, with the outcome.
	EndAttempt(ctx context.Context, a *Attempt)
	// RetryWait is called when a wait before a retry is over, or was cut
	// short by the context.
	RetryWait(ctx context.Context, w *RetryWait)
	// JobUpdate is called when a job is submitted and when a wait sees
	// a status other than the one it saw last.
	JobUpdate(ctx context.Context, j *JobUpdate)
}

// NopObserver is an Observer that does nothing; embed it in an Observer
// so that it keeps compiling when methods are added.
type NopObserver struct{}

// StartOperation returns ctx.
func (NopObserver) StartOperation(ctx context.Context, _ *Operation) context.Context { return ctx }

// EndOperation does nothing.
func (NopObserver) EndOperation(context.Context, *Operation) {}

// StartAttempt returns ctx.
func (NopObserver) StartAttempt(ctx context.Context, _ *Attempt) context.Context { return ctx }

// EndAttempt does nothing.
func (NopObserver) EndAttempt(context.Context, *Attempt) {}

// RetryWait does nothing.
func (NopObserver) RetryWait(context.Context, *RetryWait) {}

// JobUpdate does nothing.
func (NopObserver) JobUpdate(context.Context, *JobUpdate) {}

// Operation is a flow ("hosted.CorrectFile"), a bulk run
// ("hosted.CorrectDir") or one item of a bulk run. A flow called inside
// another (CorrectFile calls Correct) is reported once, as the outer one.
type Operation struct {
	// Kind is "flow", "bulk" (a run) or "item" (one file of a run).
	Kind string
	// Name is the client package and method of a flow, as
	// "bgcontainer.RemoveBackgroundFile"; the client package and "bulk"
	// for a run ("hosted.bulk"), whose items have its Name.
	Name string
	// Item is an item's number in its run (1, 2, ... in the order they
	// start); 0 for flows and runs.
	Item int
	// Start is when the operation began.
	Start time.Time
	// Duration and Err are set for EndOperation: how long it took and
	// its error (nil: success). Err is the error the caller receives.
	Duration time.Duration
	Err      error
}

// Attempt is one HTTP request sent: a call's first attempt or a retry.
type Attempt struct {
	// Method is the HTTP method.
	Method string
	// Route is the endpoint's route template as the API documentation
	// writes it ("/status/{jobID}"); empty for a pre-signed storage URL.
	Route string
	// Server is the host (and port, when the URL has one) the attempt
	// went to: with several replicas, the replica.
	Server string
	// Number is the attempt's number in its call, from 1.
	Number int
	// Header is, in StartAttempt, an empty header whose entries are
	// added to the request (a trace context; the credential header
	// excepted), for the service's own endpoints only: a redirect off
	// its origin drops them all. nil for pre-signed storage URLs, which
	// must not get one, and afterwards.
	Header http.Header
	// Start is when the attempt began, once the client's rate budget
	// (WithRateLimit) let it go.
	Start time.Time
	// Set for EndAttempt: the answer's status (0 when none came), its
	// request id (X-Request-Id and the like; the service's only, not a
	// pre-signed URL's), how long the attempt took and its transport
	// error (nil when an answer came).
	Status    int
	RequestID string
	Duration  time.Duration
	Err       error
}

// RetryWait is the wait between a failed attempt and its retry.
type RetryWait struct {
	// Attempt is the number of the attempt that failed.
	Attempt int
	// Status is its answer's status; 0 for a transport failure.
	Status int
	// Reason says why it is retried, in a few fixed words: "rate
	// limited", "server error", "request timeout", "response header
	// timeout", "truncated response" or "connection error".
	Reason string
	// RetryAfter reports a wait the server set (Retry-After).
	RetryAfter bool
	// Start is when the wait began; Duration how long it lasted.
	Start    time.Time
	Duration time.Duration
}

// JobUpdate is a job's status as the client saw it change.
type JobUpdate struct {
	// API is "hosted" or "bgcontainer" (the correction container has no
	// jobs: its correction is one request).
	API string
	// JobID is the job's id.
	JobID string
	// Status is the new status as the API documentation spells it, or
	// "other" for a value it does not document ("submitted" when the
	// submission's answer has none); Previous is the status seen before,
	// "" when unknown (a submission, a wait's first status).
	Status, Previous string
	// Submitted reports the job's submission; Terminal a final status,
	// Failed a final one that is not success.
	Submitted, Terminal, Failed bool
	// ProcessingTime is the job's processing time as the service
	// reports it; 0 when it does not.
	ProcessingTime time.Duration
}

// WithObserver reports the client's flows, bulk runs, HTTP attempts,
// retry waits and job status changes to o (see Observer); nil reports
// nothing.
func WithObserver(o Observer) Option {
	return func(c *config.Config) { c.Observer = o }
}
