package hosted

import (
	"context"
	"io"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

// flowSettings returns the polling and download bound of one flow call:
// the client's, overridden by flow's.
func (c *Client) flowSettings(flow *pfc.FlowOptions) (poll.Options, int64, error) {
	p, limit := c.pollDefaults, c.maxDownload
	if flow == nil {
		return p, limit, nil
	}
	var fe apierr.FieldErrors
	if flow.KeepJob {
		fe.Add("KeepJob", "does not apply to the hosted API, which keeps its jobs itself")
	}
	if flow.CleanupTimeout != 0 {
		fe.Add("CleanupTimeout", "does not apply to the hosted API, which keeps its jobs itself")
	}
	switch {
	case flow.MaxDownloadSize < 0:
		fe.Add("MaxDownloadSize", "must not be negative, got %d", flow.MaxDownloadSize)
	case flow.MaxDownloadSize > 0:
		limit = flow.MaxDownloadSize
	}
	if flow.Wait != nil {
		p = pollOf(*flow.Wait)
		fe = append(fe, p.Validate()...)
	}
	return p, limit, fe.Err()
}

// Correct runs the whole flow for one file: it uploads size bytes of src
// as UploadTo does, starts a job with opts (its FileKey is set to the
// uploaded file's key; nil opts means the service defaults), waits with the
// client's polling defaults or flow.Wait (see pfc.FlowOptions), and
// streams the corrected file to dst. Options are checked with
// ValidateForUpload before anything is uploaded. On a FAILED or REJECTED
// job it returns the record with a *JobError.
func (c *Client) Correct(ctx context.Context, src io.ReaderAt, size int64, opts *CorrectionOptions, dst io.Writer, flow *pfc.FlowOptions) (_ *Job, err error) {
	return c.correct(ctx, src, size, opts, dst, flow, nil)
}

// onStarted is a bulk run's hook into a flow: called once the service
// accepted the job (its id, and the key of its uploaded file), before the
// flow waits; an error ends the flow with it. nil: none.
type onStarted func(jobID, fileKey string) error

// correct is Correct with a bulk run's hook.
func (c *Client) correct(ctx context.Context, src io.ReaderAt, size int64, opts *CorrectionOptions, dst io.Writer, flow *pfc.FlowOptions, started onStarted) (_ *Job, err error) {
	ctx, op := c.http.StartOp(ctx, "hosted.Correct")
	defer func() { c.http.EndOp(ctx, op, err) }()
	var fe apierr.FieldErrors
	fileio.CheckStream(&fe, src, size, dst)
	if err := fe.Err(); err != nil {
		return nil, err
	}
	pollOpts, limit, err := c.flowSettings(flow)
	if err != nil {
		return nil, err
	}
	o := opts.Clone()
	if err := c.validateForUpload(o); err != nil {
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
	if started != nil {
		if err := started(ref.ID, key); err != nil {
			return nil, err
		}
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
// dstPath; see Correct for opts and flow. The options are
// checked (ValidateForUpload) before the file is opened or anything is
// sent. The result is written to a temporary file beside dstPath and
// renamed into place only when complete, so dstPath is never left
// half-written. A new file gets mode 0644; an overwritten one keeps its
// mode. A srcPath that is not a regular file fails with an error naming
// "srcPath" that matches pfc.ErrInvalidParameter; a missing one matches
// fs.ErrNotExist.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, opts *CorrectionOptions, flow *pfc.FlowOptions) (job *Job, err error) {
	return c.correctFile(ctx, nil, srcPath, dstPath, opts, flow, nil)
}

// correctFile is CorrectFile with the file functions' Scope (a bulk run's
// item; nil for none) and a bulk run's hook.
func (c *Client) correctFile(ctx context.Context, scope *fileio.Scope, srcPath, dstPath string, opts *CorrectionOptions, flow *pfc.FlowOptions, started onStarted) (job *Job, err error) {
	ctx, op := c.http.StartOp(ctx, "hosted.CorrectFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	if dstPath == "" {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	o := opts.Clone()
	if err := c.validateForUpload(o); err != nil {
		return nil, err
	}
	if _, _, err := c.flowSettings(flow); err != nil {
		return nil, err
	}
	in, size, err := fileio.OpenParamScoped(scope, "srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if o.FileType == "" {
		o.FileType = fileTypeOf(srcPath)
	}
	err = fileio.WriteFileAtomicScoped(scope, dstPath, func(w io.Writer) error {
		var err error
		job, err = c.correct(ctx, in, size, o, w, flow, started)
		return err
	})
	return job, err
}
