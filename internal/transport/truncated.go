package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// truncatedError is an attempt whose 2xx JSON answer arrived with its
// headers but whose body could not be read to its end: the server closed
// the connection before the declared Content-Length (or the final chunk),
// the connection was reset, or a read timed out. It is retried like a
// connection failure (see checkRetry), and ends the call when retries are
// exhausted, the context is done or the request is NoReplay. It matches
// apierr.ErrTruncatedResponse and keeps the read error in its chain.
type truncatedError struct {
	read     int64 // bytes received before the failure
	declared int64 // Content-Length, -1 when unknown
	err      error
}

func (e *truncatedError) Error() string {
	if e.declared >= 0 {
		return fmt.Sprintf("response body cut off after %d of %d bytes: %v", e.read, e.declared, e.err)
	}
	return fmt.Sprintf("response body cut off after %d bytes: %v", e.read, e.err)
}

// Unwrap returns apierr.ErrTruncatedResponse and the read error.
func (e *truncatedError) Unwrap() []error { return []error{apierr.ErrTruncatedResponse, e.err} }

// bufferJSON reads a 2xx JSON answer whole (at most maxJSONResponse bytes:
// what DoJSON would decode) inside the attempt, so that a body cut off
// mid-read is an attempt failure the retry policy sees, not a decoding
// error after the call. The body is closed; on success resp carries the
// bytes read. A complete body that is not valid JSON is not this
// function's concern: DoJSON's decoder reports it, and it is not retried.
func bufferJSON(resp *http.Response) (*http.Response, error) {
	defer resp.Body.Close()
	var buf bytes.Buffer
	if resp.ContentLength > 0 && resp.ContentLength <= maxJSONResponse {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, maxJSONResponse))
	if err != nil {
		return nil, &truncatedError{read: n, declared: resp.ContentLength, err: err}
	}
	resp.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
	return resp, nil
}
