package hosted

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// noBody is the empty request body.
var noBody transport.Body

// Download streams the job's corrected file to dst and returns the number
// of bytes written. The file is fetched from its public URL without the API
// key. The job must be COMPLETED (correctedFile set).
func (c *Client) Download(ctx context.Context, job *Job, dst io.Writer) (_ int64, err error) {
	defer exportTo(&err)
	if job == nil || job.CorrectedFile == "" {
		return 0, fmt.Errorf("pfc: download: job has no correctedFile (status %s)", statusOf(job))
	}
	resp, err := c.http.DoExternal(ctx, http.MethodGet, job.CorrectedFile, nil, noBody)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(dst, resp.Body)
	if err != nil {
		return n, fmt.Errorf("pfc: download of job %s after %d bytes: %w", job.ID, n, err)
	}
	return n, nil
}

func statusOf(job *Job) JobStatus {
	if job == nil {
		return "unknown"
	}
	return job.Status
}
