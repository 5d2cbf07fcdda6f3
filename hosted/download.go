package hosted

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// noBody is the empty request body.
var noBody transport.Body

// downloadHeader asks for the file as stored: with an explicit
// Accept-Encoding, Go's transport neither offers gzip nor decompresses,
// so the bytes written are the bytes on the wire and WithMaxDownloadSize
// bounds what reaches the disk.
var downloadHeader = http.Header{"Accept-Encoding": {"identity"}}

// Download streams the job's corrected file to dst and returns the number
// of bytes written. The file is fetched from its public URL without the API
// key, asking for the identity encoding (the bytes are written as they
// arrive, never decompressed). The job must be COMPLETED (correctedFile
// set). A file larger than pfc.WithMaxDownloadSize fails with a
// *pfc.DownloadTooLargeError once that many bytes were written (at once when
// the Content-Length says so).
func (c *Client) Download(ctx context.Context, job *Job, dst io.Writer) (_ int64, err error) {
	return c.download(ctx, job, dst, c.maxDownload)
}

// DownloadFile writes the job's corrected file to path atomically (see
// Download): the bytes go to a temporary file beside path, which is
// renamed over path only once complete and synced, so path is never
// half-written and is left untouched on failure. A new file gets mode
// 0644; an overwritten one keeps its mode.
func (c *Client) DownloadFile(ctx context.Context, job *Job, path string) (_ int64, err error) {
	if path == "" {
		return 0, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "path", Message: "is required"}}}
	}
	return fileio.DownloadFile(nil, path, func(w io.Writer) (int64, error) { return c.Download(ctx, job, w) })
}

func (c *Client) download(ctx context.Context, job *Job, dst io.Writer, limit int64) (int64, error) {
	if job == nil || job.CorrectedFile == "" {
		return 0, c.errorf("pfc: download: job has no correctedFile (status %s)", c.quote(string(statusOf(job)), apierr.MaxQuotedID))
	}
	if dst == nil {
		return 0, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "dst", Message: "is required"}}}
	}
	resp, err := c.http.DoExternal(ctx, http.MethodGet, job.CorrectedFile, downloadHeader, noBody)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := fileio.CopyLimited(dst, resp.Body, resp.ContentLength, limit)
	switch {
	case errors.Is(err, pfc.ErrDownloadTooLarge):
		return n, &pfc.DownloadTooLargeError{Name: c.quote(job.ID, apierr.MaxQuotedMessage), Limit: limit, Written: n}
	case err != nil:
		return n, c.errorf("pfc: download of job %s after %d bytes: %w", c.quote(job.ID, apierr.MaxQuotedMessage), n, err)
	}
	return n, nil
}

func statusOf(job *Job) JobStatus {
	if job == nil {
		return "unknown"
	}
	return job.Status
}
