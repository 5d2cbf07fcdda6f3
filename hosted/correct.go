package hosted

import (
	"context"
	"io"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CallOption configures one Correct or CorrectFile call, on top of the
// client's settings: the polling of this call's wait, a progress callback,
// a download bound.
type CallOption func(*callConfig)

// callConfig is what the CallOptions of one call set.
type callConfig struct {
	wait        *WaitOptions
	onProgress  func(*Job)
	maxDownload *int64
}

// WithWait makes this call wait as o says (delays, MaxWait, OnProgress)
// instead of with the client's polling defaults (WithPolling).
func WithWait(o WaitOptions) CallOption {
	return func(c *callConfig) { c.wait = &o }
}

// WithProgress calls fn with every job record fetched while this call
// waits, terminal or not, on the calling goroutine. It takes precedence
// over a WaitOptions.OnProgress.
func WithProgress(fn func(*Job)) CallOption {
	return func(c *callConfig) { c.onProgress = fn }
}

// WithDownloadLimit bounds the corrected file of this call to n bytes (0:
// no bound), instead of the client's WithMaxDownloadSize.
func WithDownloadLimit(n int64) CallOption {
	return func(c *callConfig) { c.maxDownload = &n }
}

// callSettings returns the polling and download bound of one call: the
// client's, overridden by the call's options.
func (c *Client) callSettings(opts []CallOption) (poll.Options, int64, error) {
	var cfg callConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	limit := c.maxDownload
	if cfg.maxDownload != nil {
		if *cfg.maxDownload < 0 {
			return poll.Options{}, 0, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "WithDownloadLimit", Message: "must not be negative"}}}
		}
		limit = *cfg.maxDownload
	}
	p := c.pollDefaults
	if cfg.wait != nil {
		p = cfg.wait.pollOptions()
	}
	if cfg.onProgress != nil {
		p.OnProgress = WaitOptions{OnProgress: cfg.onProgress}.pollOptions().OnProgress
	}
	if fe := p.Validate(); len(fe) > 0 {
		return poll.Options{}, 0, fe.Err()
	}
	return p, limit, nil
}

// Correct runs the whole flow for one file: it uploads size bytes of src,
// starts a job with opts (its FileKey is set to the uploaded file's key;
// nil opts means the service defaults), waits with the client's polling
// defaults or the call's WithWait and WithProgress, and streams the
// corrected file to dst. Options are checked with ValidateForUpload before
// anything is uploaded. On a FAILED or REJECTED job it returns the record
// with a *JobError.
func (c *Client) Correct(ctx context.Context, src io.ReaderAt, size int64, opts *CorrectionOptions, dst io.Writer, call ...CallOption) (_ *Job, err error) {
	var fe apierr.FieldErrors
	if src == nil {
		fe.Add("src", "is required")
	}
	if size < 0 {
		fe.Add("size", "must not be negative, got %d", size)
	}
	if dst == nil {
		fe.Add("dst", "is required")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	pollOpts, limit, err := c.callSettings(call)
	if err != nil {
		return nil, err
	}
	o := opts.Clone()
	if err := o.ValidateForUpload(); err != nil {
		return nil, err
	}
	fileType := o.FileType
	if fileType == "" {
		fileType = FileTypeImage
	}
	key, err := c.Upload(ctx, fileType, src, size, fileio.DetectContentType(src, size))
	if err != nil {
		return nil, err
	}
	o.FileKey = key
	ref, err := c.StartJob(ctx, o)
	if err != nil {
		return nil, err
	}
	job, err := c.wait(ctx, ref.ID, pollOpts)
	if err != nil {
		return job, err
	}
	if _, err := c.download(ctx, job, dst, limit); err != nil {
		return job, err
	}
	return job, nil
}

// CorrectFile corrects the file at srcPath and writes the result to
// dstPath; see Correct for opts and the call options. The options are
// checked (ValidateForUpload) before the file is opened or anything is
// sent. The result is written to a temporary file beside dstPath and
// renamed into place only when complete, so dstPath is never left
// half-written. A new file gets mode 0644; an overwritten one keeps its
// mode. A srcPath that is not a regular file fails with an error naming
// "srcPath" that matches pfc.ErrInvalidParameter; a missing one matches
// fs.ErrNotExist.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, opts *CorrectionOptions, call ...CallOption) (job *Job, err error) {
	if dstPath == "" {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	o := opts.Clone()
	if err := o.ValidateForUpload(); err != nil {
		return nil, err
	}
	if _, _, err := c.callSettings(call); err != nil {
		return nil, err
	}
	in, size, err := fileio.OpenParam("srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if o.FileType == "" {
		o.FileType = fileTypeOf(srcPath)
	}
	err = fileio.WriteFileAtomic(dstPath, func(w io.Writer) error {
		var err error
		job, err = c.Correct(ctx, in, size, o, w, call...)
		return err
	})
	return job, err
}
