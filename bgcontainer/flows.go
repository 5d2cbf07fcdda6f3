package bgcontainer

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/pfc"
)

// defaultCleanupTimeout bounds the RemoveImage that ends every
// RemoveBackground (pfc.FlowOptions.CleanupTimeout).
const defaultCleanupTimeout = 10 * time.Second

// Result is what RemoveBackground did.
type Result struct {
	// Activated is true when the call applied the licence key because the
	// container was not activated.
	Activated bool
	// Job is SubmitImage's answer.
	Job *Job
	// Check is the last state CheckImage reported (completed on success).
	Check *CheckResult
	// Bytes is the size of the PNG written.
	Bytes int64
	// Removed is RemoveImage's answer; nil when the job was kept or its
	// removal failed.
	Removed *DeleteResult
	// RemoveErr is why the final RemoveImage failed, if it did. It does
	// not fail the call: the PNG is complete.
	RemoveErr error
	// Replica is the base URL of the replica that ran the job, for a
	// client of several replicas (pfc.WithReplicas, pfc.WithReplicaHost).
	Replica string
	// LostReplicas are the replicas found down, or not answering within
	// the response header timeout, during the call (the image was done
	// again on another one; see Abandoned).
	LostReplicas []string
	// Abandoned are the earlier runs of this call whose replica was lost
	// after it accepted their job, the image then done again elsewhere:
	// each with its Job and Replica. Each job's removal (KeepJob or not)
	// starts then, alongside the redo, waiting up to CleanupTimeout for
	// its replica to answer again, at the pace of the client's retries,
	// while ctx lasts; the call, also failed or cancelled, returns once
	// they end. Removed is set, or RemoveErr says why not: it matches
	// context.DeadlineExceeded when the replica stayed away (else ctx's
	// error) and holds the last attempt's.
	Abandoned []*Result
}

// LicenseError reports that the container is not activated and applying
// the client's licence key did not activate it. It matches ErrNotActivated.
type LicenseError struct {
	// Status is the answer of Authorize (Unlicensed).
	Status *LicenseStatus
	// message is the redacted text of Error.
	message string
}

// Error returns "pfc: activation failed: <status>[: <message>]".
func (e *LicenseError) Error() string { return e.message }

// Unwrap returns ErrNotActivated.
func (e *LicenseError) Unwrap() error { return ErrNotActivated }

// RemoveBackground removes the background of size bytes of image and
// streams the PNG to w (hosted Correct's argument order). It submits
// (applying the licence key first if the container is not activated),
// waits, downloads, and then always removes the job, also after a failure
// or a cancelled ctx, on its own context bounded by
// flow.CleanupTimeout. Everything is checked before anything is sent. The
// Result is non-nil once a job was submitted, also with an error. A failed
// job gives a *JobError, a licence that does not activate a *LicenseError.
// Once w got bytes, a lost replica is not replaced.
func (c *Client) RemoveBackground(ctx context.Context, image io.ReaderAt, size int64, opts *SubmitOptions, w io.Writer, flow *pfc.FlowOptions) (_ *Result, err error) {
	ctx, op := c.http.StartOp(ctx, "bgcontainer.RemoveBackground")
	defer func() { c.http.EndOp(ctx, op, err) }()
	if ctx == nil {
		return nil, errNilContext()
	}
	var o SubmitOptions
	if opts != nil {
		o = *opts
	}
	if w == nil {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "w", Message: "is required"}}}
	}
	return c.run(ctx, image, size, &o, flow, true, nil, func(ctx context.Context, dl *Client, id string) (int64, error) {
		return dl.DownloadImage(ctx, id, w)
	})
}

// RemoveBackgroundFile is RemoveBackground from the file at srcPath to the
// file at dstPath. dstPath is written atomically (a temporary file beside
// it, renamed once complete): it is never left half-written, and not
// touched at all when the job fails. The file part is named after
// srcPath's base name unless opts.Submit.FileName is set.
func (c *Client) RemoveBackgroundFile(ctx context.Context, srcPath, dstPath string, opts *SubmitOptions, flow *pfc.FlowOptions) (_ *Result, err error) {
	return c.removeBackgroundFile(ctx, nil, srcPath, dstPath, opts, flow, nil)
}

// onStarted is a bulk run's hook into a flow: called once the container
// accepted a job (its process id, and the Key of its replica, empty for a
// client of one base URL), before the flow waits; an error ends the flow
// with it (the job is still removed). recorded says the job is in a
// manifest: a flow cancelled then leaves it for the rerun to collect and
// remove. nil: none.
type onStarted func(processID, replica string) (recorded bool, err error)

// removeBackgroundFile is RemoveBackgroundFile with the file functions'
// Scope (a bulk run's item; nil for none) and a bulk run's hook.
func (c *Client) removeBackgroundFile(ctx context.Context, scope *fileio.Scope, srcPath, dstPath string, opts *SubmitOptions, flow *pfc.FlowOptions, started onStarted) (_ *Result, err error) {
	ctx, op := c.http.StartOp(ctx, "bgcontainer.RemoveBackgroundFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	if ctx == nil {
		return nil, errNilContext()
	}
	if dstPath == "" {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	in, size, err := fileio.OpenParamScoped(scope, "srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var o SubmitOptions
	if opts != nil {
		o = *opts
	}
	if o.FileName == "" {
		o.FileName = filepath.Base(srcPath)
	}
	return c.run(ctx, in, size, &o, flow, false, started, func(ctx context.Context, dl *Client, id string) (int64, error) {
		d, err := dl.openDownload(ctx, id)
		if err != nil {
			return 0, err
		}
		defer d.body.Close()
		return dl.saveResult(scope, id, dstPath, d)
	})
}

// run is the flow shared by RemoveBackground and RemoveBackgroundFile.
// streamed says that download writes to the caller's io.Writer, which a
// redo cannot take back once bytes reached it.
func (c *Client) run(ctx context.Context, image io.ReaderAt, size int64, o *SubmitOptions, flow *pfc.FlowOptions, streamed bool, started onStarted,
	download func(context.Context, *Client, string) (int64, error)) (res *Result, err error) {
	if err := validateFlow(o, flow); err != nil {
		return nil, err
	}
	if c.flow.Pinned() != nil || !c.fleet() {
		return c.runOn(ctx, image, size, o, flow, started, download)
	}
	// A fleet: the job runs on the least busy replica; when that replica
	// turns out to be lost (down: a call and a probe never reach it; or
	// hung: a call got no answer within the response header timeout), its
	// job is out of reach and the image is done again on another one. The
	// job a redo abandons is removed, once its replica answers again,
	// while the redo runs (removeLeft); the flow waits for those removals
	// before it returns, so that the Result says what became of each.
	var (
		tried     []*replica
		lostURLs  []string
		held      *leftJob // the last run's job, on a lost replica, not redone yet
		abandoned []*Result
		removing  sync.WaitGroup // one removal per replica lost, at most
	)
	timeout := cleanupTimeout(flow)
	defer func() {
		if held != nil && (flow == nil || !flow.KeepJob) {
			c.removeLeft(ctx, []*leftJob{held}, timeout) // the Result's own job
		}
		removing.Wait()
		if res == nil && len(lostURLs) > 0 {
			res = &Result{LostReplicas: lostURLs}
		}
		if res != nil {
			res.Abandoned = abandoned
		}
	}()
	for {
		rep := c.reps.Pick(tried...)
		if rep == nil {
			return res, err
		}
		if held != nil {
			// The image is done again: the job left behind is abandoned,
			// and its removal starts now.
			j := held
			held, abandoned = nil, append(abandoned, j.res)
			removing.Add(1)
			go func() {
				defer removing.Done()
				c.removeLeft(ctx, []*leftJob{j}, timeout)
			}()
		}
		f := &replicas.Flow{Pin: rep, Movable: true}
		r, e := c.onFlow(f).runOn(ctx, image, size, o, flow, started, download)
		c.reps.Release(rep)
		lost := f.Lost
		if lost {
			lostURLs = append(lostURLs, rep.URL)
		}
		if r != nil {
			r.Replica, r.LostReplicas = rep.URL, slices.Clone(lostURLs)
		}
		res, err = r, e
		if !lost {
			return res, err
		}
		if r != nil && r.Job != nil {
			held = &leftJob{res: r, rep: rep} // runOn did not remove its job
		}
		if streamed && r != nil && r.Bytes > 0 {
			// Part of this run's PNG reached the caller's writer: a redo
			// would write a second PNG after it.
			return res, err
		}
		tried = append(tried, rep)
	}
}

// cleanupTimeout is the bound of a flow's removals
// (pfc.FlowOptions.CleanupTimeout, 0: defaultCleanupTimeout).
func cleanupTimeout(flow *pfc.FlowOptions) time.Duration {
	if flow == nil || flow.CleanupTimeout <= 0 {
		return defaultCleanupTimeout
	}
	return flow.CleanupTimeout
}

// checkLost marks the replica of c's Movable flow lost (Flow.Lost) when a step ended with a 5xx that
// counts against the replica (its policy; not DownloadImage's 500
// "processing failed"), its retries spent, or (setting it aside) failed
// without an answer from it and either it did not answer within the
// response header timeout (a hung replica) or a probe never reaches it.
// Its job, if it took one, is then abandoned.
func (c *Client) checkLost(ctx context.Context, err error) {
	f := c.flow
	if f == nil || !f.Movable || f.Pin == nil || err == nil || ctx.Err() != nil {
		return
	}
	rep := f.Pin
	var answered *Error // the replica answered: it is up
	if errors.As(err, &answered) && policyOf(endpoint(answered.Endpoint)).Sick(err) {
		f.Lost = true // not set aside: its health count decides that
		return
	}
	var ae *pfc.APIError
	if answered != nil || errors.As(err, &ae) {
		return
	}
	if !replicas.Unanswered(err) && !c.unreachable(ctx, rep) {
		return
	}
	c.reps.SetAside(rep)
	f.Lost = true
}

// isLost reports whether checkLost found the replica of c's flow down.
func (c *Client) isLost() bool { return c.flow != nil && c.flow.Lost }

// runOn is the flow on one replica (c's flow's, or the only one).
func (c *Client) runOn(ctx context.Context, image io.ReaderAt, size int64, o *SubmitOptions, flow *pfc.FlowOptions, started onStarted,
	download func(context.Context, *Client, string) (int64, error)) (res *Result, err error) {
	var f pfc.FlowOptions
	if flow != nil {
		f = *flow
	}
	dl := c // the client that downloads, with the flow's bound
	if f.MaxDownloadSize > 0 {
		cc := *c
		cc.maxDownload = f.MaxDownloadSize
		dl = &cc
	}
	res = &Result{}
	job, err := c.SubmitImage(ctx, image, size, o)
	if errors.Is(err, ErrNotActivated) && c.licenseKey != nil {
		if err = c.activate(ctx); err != nil {
			// A replica that died between the submission and the
			// activation is lost like one that died at any other step.
			c.checkLost(ctx, err)
			return nil, err
		}
		res.Activated = true
		job, err = c.SubmitImage(ctx, image, size, o)
	}
	if err != nil {
		c.checkLost(ctx, err)
		return nil, err
	}
	res.Job = job
	recorded := false // in a bulk manifest (see onStarted)
	if !f.KeepJob {
		defer func() {
			// A lost replica's job is removed by run once it answers; a
			// recorded job of a cancelled bulk run by its rerun.
			if !c.isLost() && (!recorded || ctx.Err() == nil) {
				res.Removed, res.RemoveErr = c.cleanup(ctx, job.ProcessID, cleanupTimeout(&f))
			}
		}()
	}
	// Before the removal above, which leaves the job of a replica found
	// down to run.
	defer func() { c.checkLost(ctx, err) }()
	if started != nil {
		rk := ""
		if rep := c.flow.Pinned(); rep != nil {
			rk = replicas.Key(rep.URL)
		}
		if recorded, err = started(job.ProcessID, rk); err != nil {
			return res, err
		}
	}
	res.Check, err = c.WaitImage(ctx, job.ProcessID, f.Wait)
	if err != nil {
		var te *pfc.WaitTimeoutError
		if errors.As(err, &te) {
			res.Check, _ = te.Last.(*CheckResult)
		}
		return res, err
	}
	res.Bytes, err = download(ctx, dl, job.ProcessID)
	return res, err
}

// validateFlow checks the submit options and the flow's before anything
// is sent.
func validateFlow(o *SubmitOptions, flow *pfc.FlowOptions) error {
	var fe fieldErrors
	if flow != nil {
		if flow.CleanupTimeout < 0 {
			fe.add("CleanupTimeout", "must not be negative, got %s", flow.CleanupTimeout)
		}
		if flow.MaxDownloadSize < 0 {
			fe.add("MaxDownloadSize", "must not be negative, got %d", flow.MaxDownloadSize)
		}
		if flow.Wait != nil {
			fe = append(fe, pollOf(*flow.Wait).Validate()...)
		}
	}
	if _, _, err := o.encode(); err != nil {
		var ve *pfc.ValidationError
		if errors.As(err, &ve) {
			fe = append(fe, ve.Errors...)
		}
	}
	return fe.err()
}

// activate applies the licence key; an Unlicensed answer is a
// *LicenseError.
func (c *Client) activate(ctx context.Context) error {
	st, err := c.Authorize(ctx)
	if err != nil {
		return err
	}
	if st.IsLicensed() {
		return nil
	}
	msg := "pfc: activation failed: " + c.quote(string(st.Status), apierr.MaxQuotedValue)
	if m := c.quote(st.Message, apierr.MaxQuotedMessage); m != "" {
		msg += ": " + m
	}
	return &LicenseError{Status: st, message: msg}
}

// cleanup removes a job on a context of its own: the caller's values, not
// its cancellation, bounded by timeout.
func (c *Client) cleanup(ctx context.Context, processID string, timeout time.Duration) (*DeleteResult, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	return c.RemoveImage(cctx, processID)
}
