package hosted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/internal/apierr"
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
	key, err := c.Upload(ctx, fileType, src, size, sniffContentType(src, size))
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
// mode.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, opts *CorrectionOptions) (job *Job, err error) {
	if dstPath == "" {
		return nil, &ValidationError{Errors: []FieldError{{Field: "dstPath", Message: "is required"}}}
	}
	in, err := os.Open(srcPath)
	if err != nil {
		return nil, fmt.Errorf("hosted: correct: %w", err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return nil, fmt.Errorf("hosted: correct: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("hosted: correct: %s is not a regular file", srcPath)
	}
	o := CorrectionOptions{}
	if opts != nil {
		o = *opts
	}
	if o.FileType == "" {
		o.FileType = fileTypeOf(srcPath)
	}

	tmp, err := os.CreateTemp(filepath.Dir(dstPath), "."+filepath.Base(dstPath)+".*.partial")
	if err != nil {
		return nil, fmt.Errorf("hosted: correct: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	job, err = c.Correct(ctx, in, st.Size(), &o, tmp)
	if err != nil {
		return job, err
	}
	// CreateTemp makes the file 0600; give the result the mode an
	// overwritten file had, or 0644 for a new one.
	mode := os.FileMode(0o644)
	if st, statErr := os.Stat(dstPath); statErr == nil {
		mode = st.Mode().Perm()
	}
	if err = tmp.Chmod(mode); err != nil {
		return job, fmt.Errorf("hosted: correct: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return job, fmt.Errorf("hosted: correct: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return job, fmt.Errorf("hosted: correct: %w", err)
	}
	if err = os.Rename(tmp.Name(), dstPath); err != nil {
		return job, fmt.Errorf("hosted: correct: %w", err)
	}
	return job, nil
}

// sniffContentType reads at most 512 bytes to label the upload.
func sniffContentType(src io.ReaderAt, size int64) string {
	head := make([]byte, min(size, 512))
	n, err := src.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "application/octet-stream"
	}
	return http.DetectContentType(head[:n])
}
