package bgcontainer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// jsonHeader asks for JSON answers.
func jsonHeader() http.Header { return http.Header{"Accept": {"application/json"}} }

// errNilContext is returned by every call given a nil context.
var errNilContext = errors.New("bgcontainer: nil context")

// send sends r and returns the body of its 2xx answer; the caller
// closes it. Error answers become an *APIError of ep.
func (c *Client) send(ctx context.Context, ep Endpoint, processID string, r *transport.Request) (io.ReadCloser, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	resp, err := c.http.Do(ctx, r)
	if err != nil {
		return nil, wrapErr(ep, processID, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// A redirect that was not followed, or a final 1xx handed over by
		// a custom RoundTripper (the transport reports the container's
		// 102 itself).
		resp.Body.Close()
		return nil, newAPIError(ep, resp.StatusCode, "", "", "", processID, "", nil)
	}
	return resp.Body, nil
}

// checkID validates a process id; the error's text is redacted.
func (c *Client) checkID(id string) error {
	err := ValidateProcessID(id)
	var ve *ValidationError
	if errors.As(err, &ve) {
		for i := range ve.Errors {
			ve.Errors[i].Message = c.redact(ve.Errors[i].Message)
		}
	}
	return err
}

// Authorize applies the client's licence key (GET /Authorize/{license_key}).
// The container needs it once per instance, before any image endpoint
// works. A wrong key is not an error: the answer's Status is Unlicensed
// (check IsLicensed). The key never appears in errors or logs. A client
// made without a key returns a *ValidationError naming license_key.
func (c *Client) Authorize(ctx context.Context) (*LicenseStatus, error) {
	if err := validateLicenseKey(c.licenseKey); err != nil {
		return nil, err
	}
	body, err := c.send(ctx, EndpointAuthorize, "", &transport.Request{
		Path: transport.PathJoin("Authorize", c.licenseKey), Header: jsonHeader(),
	})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return decodeLicenseStatus(EndpointAuthorize, body, c.redact)
}

// Status reports the container's licence and model version (GET /Status).
// It works before activation (Status Unlicensed).
func (c *Client) Status(ctx context.Context) (*LicenseStatus, error) {
	body, err := c.send(ctx, EndpointStatus, "", &transport.Request{Path: "Status", Header: jsonHeader()})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return decodeLicenseStatus(EndpointStatus, body, c.redact)
}

// CheckImage reports a job's state (GET /CheckImage/{process_id}). A failed
// job is a CheckResult with Status StatusFailed and its Error, not an
// error. An unknown or removed job matches ErrJobNotFound.
func (c *Client) CheckImage(ctx context.Context, processID string) (*CheckResult, error) {
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	body, err := c.send(ctx, EndpointCheckImage, processID, &transport.Request{
		Path: transport.PathJoin("CheckImage", processID), Header: jsonHeader(),
	})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return decodeCheckResult(processID, body, c.redact)
}

// RemoveImage deletes a job and its files (DELETE /RemoveImage/{process_id}),
// also of a job still queued or processing. Later calls for the id match
// ErrJobNotFound.
func (c *Client) RemoveImage(ctx context.Context, processID string) (*DeleteResult, error) {
	if err := c.checkID(processID); err != nil {
		return nil, err
	}
	body, err := c.send(ctx, EndpointRemoveImage, processID, &transport.Request{
		Method: http.MethodDelete, Path: transport.PathJoin("RemoveImage", processID), Header: jsonHeader(),
	})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return decodeDeleteResult(body, c.redact)
}

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// openDownload sends GET /DownloadImage/{process_id} and returns the PNG
// stream of a completed job. While the job is queued or processing the
// container answers a final HTTP 102: the call returns at once with an
// *APIError matching ErrStillProcessing.
func (c *Client) openDownload(ctx context.Context, processID string) (io.ReadCloser, *bufio.Reader, error) {
	if err := c.checkID(processID); err != nil {
		return nil, nil, err
	}
	body, err := c.send(ctx, EndpointDownloadImage, processID, &transport.Request{
		Path:            transport.PathJoin("DownloadImage", processID),
		Header:          http.Header{"Accept": {"image/png, application/json"}},
		FinalProcessing: true,
		PermanentStatus: func(status int) bool { return status == http.StatusInternalServerError },
	})
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(body)
	head, err := br.Peek(len(pngMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		body.Close()
		return nil, nil, c.streamErr(processID, 0, err)
	}
	if !bytes.Equal(head, pngMagic) {
		body.Close()
		return nil, nil, &ResponseError{Endpoint: EndpointDownloadImage, Reason: "the body is not a PNG image"}
	}
	return body, br, nil
}

// DownloadImage streams the PNG result of a completed job to w and returns
// the number of bytes written (GET /DownloadImage/{process_id}). Nothing is
// written unless the answer is a PNG. While the job is queued or
// processing it returns promptly with an *APIError matching
// ErrStillProcessing (the container's HTTP 102); a failed job matches
// ErrProcessingFailed, an unknown or removed one ErrJobNotFound.
func (c *Client) DownloadImage(ctx context.Context, processID string, w io.Writer) (int64, error) {
	if w == nil {
		return 0, &ValidationError{Errors: []FieldError{{Field: "w", Message: "is required"}}}
	}
	body, br, err := c.openDownload(ctx, processID)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	return c.copyResult(processID, w, br)
}

// DownloadImageFile is DownloadImage into the file at path, written
// atomically: the PNG goes to a temporary file beside path, renamed into
// place only once complete, so path is never left half-written and is not
// touched at all when the job is not completed. A new file gets mode 0644;
// an overwritten one keeps its mode.
func (c *Client) DownloadImageFile(ctx context.Context, processID, path string) (int64, error) {
	if path == "" {
		return 0, &ValidationError{Errors: []FieldError{{Field: "path", Message: "is required"}}}
	}
	body, br, err := c.openDownload(ctx, processID)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	var n int64
	err = fileio.WriteFileAtomic(path, func(w io.Writer) error {
		var err error
		n, err = c.copyResult(processID, w, br)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// copyResult streams the PNG to w.
func (c *Client) copyResult(processID string, w io.Writer, r io.Reader) (int64, error) {
	n, err := io.Copy(w, r)
	if err != nil {
		return n, c.streamErr(processID, n, err)
	}
	return n, nil
}

// streamErr reports a failure while the result was streamed.
func (c *Client) streamErr(processID string, n int64, err error) error {
	return &redactedError{
		msg: c.redact(fmt.Sprintf("bgcontainer: DownloadImage %s: after %d bytes: %v", processID, n, err)),
		err: err,
	}
}

// redactedError carries a cause whose text may not be safe to print: its
// own text is redacted, and errors.Is/As still reach the cause.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
