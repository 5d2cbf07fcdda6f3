package hosted

import (
	"context"
	"io"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// Correct runs the whole flow for one file: it uploads size bytes of src,
// starts a job with opts (its FileKey is set to the uploaded file), waits
// with the client's polling defaults, and streams the corrected file to
// dst. Options are validated before anything is uploaded. On a FAILED or
// REJECTED job it returns the record with a *JobError.
func (c *Client) Correct(ctx context.Context, src io.ReaderAt, size int64, opts *CorrectionOptions, dst io.Writer) (*Job, error) {
	var fe apierr.FieldErrors
	if src == nil {
		fe.Add("src", "is required")
	}
	if size < 0 {
		fe.Add("size", "must not be negative, got %d", size)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	o := CorrectionOptions{}
	if opts != nil {
		o = *opts
	}
	// Validate with a stand-in key so bad options fail before the upload.
	o.FileKey = "pending-upload"
	if err := o.Validate(); err != nil {
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
	ref, err := c.StartJob(ctx, &o)
	if err != nil {
		return nil, err
	}
	job, err := c.Wait(ctx, ref.ID, nil)
	if err != nil {
		return job, err
	}
	if _, err := c.Download(ctx, job, dst); err != nil {
		return job, err
	}
	return job, nil
}

// CorrectFile corrects the file at srcPath and writes the result to
// dstPath. The result is written to a temporary file beside dstPath and
// renamed into place only when complete, so dstPath is never left
// half-written. A new file gets mode 0644; an overwritten one keeps its
// mode. A srcPath that is not a regular file fails with an error naming
// "srcPath" that matches ErrInvalidParameter; a missing one matches
// fs.ErrNotExist.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, opts *CorrectionOptions) (job *Job, err error) {
	if dstPath == "" {
		return nil, &ValidationError{Errors: []FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	in, size, err := fileio.OpenParam("srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	o := CorrectionOptions{}
	if opts != nil {
		o = *opts
	}
	if o.FileType == "" {
		o.FileType = fileTypeOf(srcPath)
	}
	err = fileio.WriteFileAtomic(dstPath, func(w io.Writer) error {
		var err error
		job, err = c.Correct(ctx, in, size, &o, w)
		return err
	})
	return job, err
}
