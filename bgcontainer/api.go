package bgcontainer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// jsonHeader asks for JSON answers.
func jsonHeader() http.Header { return http.Header{"Accept": {"application/json"}} }

// errNilContext returns what every call answers a nil context: a
// *pfc.ValidationError naming ctx, as the pfccontainer and hosted transports
// do.
func errNilContext() error {
	return &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "ctx", Message: "is nil"}}}
}

// send sends r to ep and returns its 2xx answer; the caller closes the
// body. It goes to the replica of the call, as ep's Move allows (see
// replicas.Send): the flow's (c.flow), the one holding processID, any
// working one for GET /Status. Sent says which, and the Outcome of its
// attempts. Error answers become an *Error of ep.
func (c *Client) send(ctx context.Context, ep endpoint, processID string, r *transport.Request) (*http.Response, replicas.Sent, error) {
	if ctx == nil {
		return nil, replicas.Sent{}, errNilContext()
	}
	r.Endpoint = ep.decl()
	p := policyOf(ep)
	if processID != "" {
		p.Check = c.checkAnswer(ep, processID)
	}
	resp, sent, err := replicas.Send(ctx, c.reps, c.flow, processID, r, p)
	if err != nil {
		return nil, sent, wrapErr(ep, processID, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// A redirect that was not followed, or a final 1xx handed over by
		// a custom RoundTripper (the transport reports the container's
		// 102 itself).
		resp.Body.Close()
		return nil, sent, newError(ep, resp.StatusCode, "", "", "", processID, "", nil)
	}
	return resp, sent, nil
}

// checkID validates a process id; the error's text is redacted before
// the id is cut.
func (c *Client) checkID(id string) error { return validateProcessID(id, c.redact) }

// Authorize applies the client's licence key (GET /Authorize/{license_key}).
// The container needs it once per instance, before any image endpoint
// works. A wrong key is not an error: the answer's Status is Unlicensed
// (check IsLicensed). The key never appears in errors or logs, and since it
// is part of the URL a redirect is never followed: it fails with an *Error
// carrying the 3xx status. A client made without a key returns a
// *pfc.ValidationError naming license_key. A client of several replicas
// applies the key to each and reports the first error.
func (c *Client) Authorize(ctx context.Context) (_ *LicenseStatus, err error) {
	if err := validateLicenseKey(c.key()); err != nil {
		return nil, err
	}
	if ctx != nil && c.flow.Pinned() == nil && c.fleet() {
		return c.authorizeAll(ctx)
	}
	return c.authorize(ctx)
}

// authorizeAll applies the key to every replica, in order, also past one
// that fails (a replica down does not keep the others unactivated): the
// first error, else the first answer that is not Licensed, else the first
// answer.
func (c *Client) authorizeAll(ctx context.Context) (*LicenseStatus, error) {
	var (
		first    *LicenseStatus
		firstErr error
	)
	for _, r := range c.reps.Live() {
		st, err := c.pinned(r).authorize(ctx)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if first == nil || (first.IsLicensed() && !st.IsLicensed()) {
			first = st
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return first, nil
}

// authorize is Authorize on the replica of c's flow, or the only one.
func (c *Client) authorize(ctx context.Context) (*LicenseStatus, error) {
	// The key is in the path: a redirect, which may name another host and
	// keep the path, is not followed (an *Error with the 3xx status).
	resp, _, err := c.send(ctx, epAuthorize, "", &transport.Request{
		Params: []string{c.key()}, Header: jsonHeader(), NoFollowRedirects: true,
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeLicenseStatus(epAuthorize, resp.Body, c.redact)
}

// Status reports the container's licence and model version (GET /Status).
// It works before activation (Status Unlicensed). A client of several
// replicas asks the least busy one, and the next while one gives no
// answer or a 5xx; Authorize applies the key to all.
func (c *Client) Status(ctx context.Context) (_ *LicenseStatus, err error) {
	resp, _, err := c.send(ctx, epStatus, "", &transport.Request{Header: jsonHeader()})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeLicenseStatus(epStatus, resp.Body, c.redact)
}

// CheckImage reports a job's state (GET /CheckImage/{process_id}). A failed
// job is a CheckResult with Status StatusFailed and its Error, not an
// error. An unknown or removed job matches ErrJobNotFound.
func (c *Client) CheckImage(ctx context.Context, processID string) (_ *CheckResult, err error) {
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	resp, _, err := c.send(ctx, epCheckImage, processID, &transport.Request{
		Params: []string{processID}, Header: jsonHeader(),
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeCheckResult(processID, resp.Body, c.redact)
}

// RemoveImage deletes a job and its files (DELETE /RemoveImage/{process_id}),
// also of a job still queued or processing. Later calls for the id match
// ErrJobNotFound. When an attempt may have removed the job but its answer
// was lost (the connection failed after the request was sent, or the
// answer was 500, 502 or 504), and the retried request finds the job
// gone, the removal is reported as done with DeleteResult.AnswerLost. A
// 404 after attempts that were refused (429, 503) is ErrJobNotFound.
func (c *Client) RemoveImage(ctx context.Context, processID string) (_ *DeleteResult, err error) {
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	resp, sent, err := c.send(ctx, epRemoveImage, processID, &transport.Request{
		Params: []string{processID}, Header: jsonHeader(),
	})
	var ae *pfc.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && sent.RetriedAfterLanding {
		// A retry that met its own earlier attempt's removal, whose answer
		// was lost: the job is gone either way.
		return &DeleteResult{Status: "deleted", ProcessID: processID, AnswerLost: true}, nil
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	c.reps.Unbind(processID)
	return decodeDeleteResult(resp.Body, c.redact)
}

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// download is an open result: the PNG stream of a completed job.
type download struct {
	body     io.ReadCloser
	r        *bufio.Reader // body, its first bytes checked
	declared int64         // Content-Length, -1 when unknown
}

// openDownload sends GET /DownloadImage/{process_id} and returns the PNG
// stream of a completed job. While the job is queued or processing the
// container answers a final HTTP 102: the call returns at once with an
// *Error matching pfc.ErrStillProcessing. The identity encoding is asked for,
// so the bytes written are the bytes on the wire.
func (c *Client) openDownload(ctx context.Context, processID string) (*download, error) {
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	resp, _, err := c.send(ctx, epDownloadImage, processID, &transport.Request{
		Params: []string{processID},
		Header: http.Header{"Accept": {"image/png, application/json"}, "Accept-Encoding": {"identity"}},
	})
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(resp.Body)
	head, err := br.Peek(len(pngMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		resp.Body.Close()
		return nil, c.streamErr(processID, 0, fileio.ShortBody(err, int64(len(head)), resp.ContentLength))
	}
	if !bytes.Equal(head, pngMagic) {
		resp.Body.Close()
		return nil, &pfc.ResponseError{Endpoint: string(epDownloadImage), Reason: "the body is not a PNG image"}
	}
	return &download{body: resp.Body, r: br, declared: resp.ContentLength}, nil
}

// DownloadImage streams the PNG result of a completed job to w and returns
// the number of bytes written (GET /DownloadImage/{process_id}). Nothing is
// written unless the answer is a PNG. While the job is queued or
// processing it returns promptly with an *Error matching
// pfc.ErrStillProcessing (the container's HTTP 102); a failed job matches
// pfc.ErrJobFailed, an unknown or removed one ErrJobNotFound. A result
// larger than pfc.WithMaxDownloadSize fails with a *pfc.DownloadTooLargeError once
// that many bytes were written (at once when the Content-Length says so).
func (c *Client) DownloadImage(ctx context.Context, processID string, w io.Writer) (_ int64, err error) {
	if w == nil {
		return 0, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "w", Message: "is required"}}}
	}
	d, err := c.openDownload(ctx, processID)
	if err != nil {
		return 0, err
	}
	defer d.body.Close()
	return c.copyResult(processID, w, d)
}

// DownloadImageFile is DownloadImage into the file at path, written
// atomically: the PNG goes to a temporary file beside path, renamed into
// place only once complete, so path is never left half-written and is not
// touched at all when the job is not completed. A new file gets mode 0644;
// an overwritten one keeps its mode.
func (c *Client) DownloadImageFile(ctx context.Context, processID, path string) (_ int64, err error) {
	if path == "" {
		return 0, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "path", Message: "is required"}}}
	}
	d, err := c.openDownload(ctx, processID)
	if err != nil {
		return 0, err
	}
	defer d.body.Close()
	return c.saveResult(nil, processID, path, d)
}

// saveResult writes the PNG of d to path atomically, with the file
// functions' Scope (a bulk run's item; nil for none).
func (c *Client) saveResult(scope *fileio.Scope, processID, path string, d *download) (int64, error) {
	return fileio.DownloadFile(scope, path, func(w io.Writer) (int64, error) { return c.copyResult(processID, w, d) })
}

// copyResult streams the PNG to w within the download bound.
func (c *Client) copyResult(processID string, w io.Writer, d *download) (int64, error) {
	n, err := fileio.CopyLimited(w, d.r, d.declared, c.maxDownload)
	switch {
	case errors.Is(err, pfc.ErrDownloadTooLarge):
		return n, &pfc.DownloadTooLargeError{Name: c.quote(processID, apierr.MaxQuotedID), Limit: c.maxDownload, Written: n}
	case err != nil:
		return n, c.streamErr(processID, n, err)
	}
	return n, nil
}

// streamErr reports a failure while the result was streamed; its text is
// redacted, its cause stays in the chain.
func (c *Client) streamErr(processID string, n int64, err error) error {
	return apierr.Redactf(c.redact, "pfc: DownloadImage %s: after %d bytes: %w", c.quote(processID, apierr.MaxQuotedID), n, err)
}
