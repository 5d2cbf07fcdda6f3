package bgcontainer

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// DefaultCleanupTimeout bounds the RemoveImage that ends every
// RemoveBackground.
const DefaultCleanupTimeout = 10 * time.Second

// RemoveOptions are the options of RemoveBackground. The zero value uses
// the container's defaults, the client's polling defaults and
// DefaultCleanupTimeout.
type RemoveOptions struct {
	// Submit holds the SubmitImage options (mode, pre- and
	// postprocessing, file name).
	Submit SubmitOptions
	// Wait controls the polling; nil uses the client's defaults (see
	// WithPolling).
	Wait *WaitOptions
	// CleanupTimeout bounds the final RemoveImage, which runs on a context
	// of its own so that it also happens after ctx was cancelled; 0 means
	// DefaultCleanupTimeout.
	CleanupTimeout time.Duration
	// KeepJob leaves the job on the container instead of removing it.
	KeepJob bool
}

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
	// client of several replicas (WithReplicas, WithReplicaHost).
	Replica string
	// LostReplicas are the replicas found down during the call (their job
	// died with them and the image was done again on another one).
	LostReplicas []string
}

// LicenseError reports that the container is not activated and applying
// the client's licence key did not activate it. It matches ErrNotActivated.
type LicenseError struct {
	// Status is the answer of Authorize (Unlicensed).
	Status *LicenseStatus
	// message is the redacted text of Error.
	message string
}

// Error returns "pfc: activation failed: <status>: <message>".
func (e *LicenseError) Error() string { return e.message }

// Unwrap returns ErrNotActivated.
func (e *LicenseError) Unwrap() error { return ErrNotActivated }

// RemoveBackground removes the background of one image: size bytes of
// image in, the PNG (subject on transparency) streamed to w. The
// arguments come in hosted.Client.Correct's order: source, size, options,
// destination. It submits
// the image (applying the client's licence key first if the container
// answers that it is not activated), polls CheckImage with the shared
// backoff until the job ends, downloads the result and then ALWAYS removes
// the job from the container, also when a step failed or ctx was
// cancelled: the removal is best effort, on a context not derived from
// ctx, bounded by opts.CleanupTimeout. Options are checked before anything
// is sent.
//
// The Result is non-nil whenever a job was submitted, also with an error:
// it says what was done and whether the job was removed (Result.RemoveErr).
// A failed job gives a *JobError (ErrProcessingFailed), a wait running out
// a *WaitTimeoutError, a licence that does not activate a *LicenseError
// (ErrNotActivated). A job submitted just as ctx is cancelled, whose answer
// never arrived, cannot be removed: its id is unknown.
func (c *Client) RemoveBackground(ctx context.Context, image io.ReaderAt, size int64, opts *RemoveOptions, w io.Writer) (_ *Result, err error) {
	defer exportTo(&err)
	if ctx == nil {
		return nil, errNilContext()
	}
	var o RemoveOptions
	if opts != nil {
		o = *opts
	}
	if w == nil {
		return nil, &ValidationError{Errors: []FieldError{{Field: "w", Message: "is required"}}}
	}
	return c.run(ctx, image, size, &o, func(ctx context.Context, id string) (int64, error) {
		return c.DownloadImage(ctx, id, w)
	})
}

// RemoveBackgroundFile is RemoveBackground from the file at srcPath to the
// file at dstPath. dstPath is written atomically (a temporary file beside
// it, renamed once complete): it is never left half-written, and not
// touched at all when the job fails. The file part is named after
// srcPath's base name unless opts.Submit.FileName is set.
func (c *Client) RemoveBackgroundFile(ctx context.Context, srcPath, dstPath string, opts *RemoveOptions) (_ *Result, err error) {
	defer exportTo(&err)
	if ctx == nil {
		return nil, errNilContext()
	}
	if dstPath == "" {
		return nil, &ValidationError{Errors: []FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	in, size, err := fileio.OpenParamContext(ctx, "srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var o RemoveOptions
	if opts != nil {
		o = *opts
	}
	if o.Submit.FileName == "" {
		o.Submit.FileName = filepath.Base(srcPath)
	}
	return c.run(ctx, in, size, &o, func(ctx context.Context, id string) (int64, error) {
		return c.DownloadImageFile(ctx, id, dstPath)
	})
}

// run is the flow shared by RemoveBackground and RemoveBackgroundFile.
func (c *Client) run(ctx context.Context, image io.ReaderAt, size int64, o *RemoveOptions,
	download func(context.Context, string) (int64, error)) (res *Result, err error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if pinned(ctx) != nil || !c.fleet() {
		return c.runOn(ctx, image, size, o, download)
	}
	// A fleet: the job runs on the least busy replica; when that replica
	// turns out to be down (a call and a probe never reach it), the job
	// died with it and the image is done again on another one.
	var tried []*replica
	for {
		rep := c.reps.Pick(tried...)
		if rep == nil {
			return res, err
		}
		lost := false
		r, e := c.runOn(context.WithValue(pin(ctx, rep), lostKey{}, &lost), image, size, o, download)
		c.reps.Release(rep)
		if r != nil {
			r.Replica = rep.URL
			r.LostReplicas = append(res.lostReplicas(), r.LostReplicas...)
		}
		res, err = r, e
		if !lost {
			return res, err
		}
		if res == nil {
			res = &Result{}
		}
		res.LostReplicas = append(res.LostReplicas, rep.URL)
		tried = append(tried, rep)
	}
}

// lostKey carries a *bool that runOn sets when the replica it runs on is
// down.
type lostKey struct{}

// checkLost marks a flow's replica lost (and sets it aside) when a step
// failed without an answer from it and a probe never reaches it.
func (c *Client) checkLost(ctx context.Context, err error) {
	lost, ok := ctx.Value(lostKey{}).(*bool)
	rep := pinned(ctx)
	var answered *Error // the replica answered: it is up
	var ae *apierr.APIError
	if !ok || rep == nil || err == nil || errors.As(err, &answered) || errors.As(err, &ae) || !c.unreachable(ctx, rep) {
		return
	}
	c.reps.SetAside(rep)
	*lost = true
}

func (r *Result) lostReplicas() []string {
	if r == nil {
		return nil
	}
	return r.LostReplicas
}

// runOn is the flow on one replica (pinned in ctx, or the only one).
func (c *Client) runOn(ctx context.Context, image io.ReaderAt, size int64, o *RemoveOptions,
	download func(context.Context, string) (int64, error)) (res *Result, err error) {
	res = &Result{}
	job, err := c.SubmitImage(ctx, image, size, &o.Submit)
	if errors.Is(err, ErrNotActivated) && c.licenseKey != nil {
		if err = c.activate(ctx); err != nil {
			return nil, err
		}
		res.Activated = true
		job, err = c.SubmitImage(ctx, image, size, &o.Submit)
	}
	if err != nil {
		c.checkLost(ctx, err)
		return nil, err
	}
	res.Job = job
	if !o.KeepJob {
		defer func() {
			res.Removed, res.RemoveErr = c.cleanup(ctx, job.ProcessID, o.CleanupTimeout)
			res.RemoveErr = exportErr(res.RemoveErr)
		}()
	}
	// Before the removal above: a replica found down gets one attempt.
	defer func() { c.checkLost(ctx, err) }()
	res.Check, err = c.WaitImage(ctx, job.ProcessID, o.Wait)
	if err != nil {
		var te *WaitTimeoutError
		if errors.As(err, &te) {
			res.Check = te.Last
		}
		return res, err
	}
	res.Bytes, err = download(ctx, job.ProcessID)
	return res, err
}

// validate checks o before anything is sent.
func (o *RemoveOptions) validate() error {
	var fe fieldErrors
	if o.CleanupTimeout < 0 {
		fe.add("CleanupTimeout", "must not be negative, got %s", o.CleanupTimeout)
	}
	if o.Wait != nil {
		for _, e := range o.Wait.pollOptions().Validate() {
			fe.add(e.Field, "%s", e.Message)
		}
	}
	if _, _, err := o.Submit.encode(); err != nil {
		var ve *ValidationError
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
	if timeout <= 0 {
		timeout = DefaultCleanupTimeout
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	return c.RemoveImage(cctx, processID)
}
