package transport

import (
	"bytes"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// permanentAnswer reports whether the error response resp is final by
// the call's Endpoint.FinalAnswer hook: the hook sees the *apierr.APIError the
// caller would get (status, code, message, parameter, all redacted), built
// from a bounded copy of the body (apierr.MaxBody bytes). The body is not
// lost: the copy is put back in front of the rest, so a response that is
// returned after all (retries exhausted, or the hook said permanent) still
// reads whole. Only responses of 400 or more are shown to the hook; a nil
// hook answers false.
func (cl *call) permanentAnswer(resp *http.Response) bool {
	if cl.permanentErr == nil || resp == nil || resp.StatusCode < 400 {
		return false
	}
	return cl.permanentErr(peekAPIError(resp, cl.method, cl.url(), cl.attempts, cl.redact))
}

// peekAPIError builds the *apierr.APIError of resp from at most
// apierr.MaxBody bytes of its body and restores the body: resp.Body then
// reads the peeked bytes followed by the unread rest, and closing it closes
// the original body.
func peekAPIError(resp *http.Response, method, logURL string, attempts int, redact func(string) string) *apierr.APIError {
	shadow := *resp
	shadow.Body = nil
	if resp.Body != nil && resp.Body != http.NoBody {
		head, err := io.ReadAll(io.LimitReader(resp.Body, apierr.MaxBody))
		shadow.Body = io.NopCloser(bytes.NewReader(head))
		resp.Body = &peekedBody{Reader: io.MultiReader(bytes.NewReader(head), &errReader{resp.Body, err}), Closer: resp.Body}
	}
	return apierr.FromResponse(&shadow, method, logURL, attempts, redact)
}

// peekedBody is a response body whose first bytes were read ahead.
type peekedBody struct {
	io.Reader
	io.Closer
}

// errReader reads r, or fails with err when reading the peeked head
// already failed (the failure is reported where the caller reads it).
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return e.r.Read(p)
}
