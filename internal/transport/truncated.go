package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

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

// cutOff counts the n bytes a read of the caller's body (a download)
// returned and makes its error, when the body was cut off before its end
// (the connection closed before the Content-Length or the final chunk, or
// reset), a *truncatedError, which matches apierr.ErrTruncatedResponse and
// keeps the read error: whatever fails a read before io.EOF cut the body.
// io.EOF, a read after Close and a read the attempt's context ended (the
// caller's cancellation) keep their error.
func (a *attempt) cutOff(n int, err error) error {
	a.rRead += int64(n)
	if err == nil || errors.Is(err, io.EOF) || a.ctx.Err() != nil {
		return err
	}
	a.rmu.Lock()
	closed := a.rClosed
	a.rmu.Unlock()
	if closed {
		return err
	}
	return &truncatedError{read: a.rRead, declared: a.declare, err: err}
}

// bufferJSON reads a 2xx JSON answer whole (at most the call's
// bufferLimit+1 bytes: enough for the caller to see it is too long) inside
// the attempt, so that a body cut off mid-read is an attempt failure the
// retry policy sees, not a decoding error after the call. The read is
// watched like the wait for the headers (see readWatched): a body that
// stops arriving ends the attempt instead of hanging the call. The body is
// closed; on success resp carries the bytes read. A complete body that is
// not valid JSON is not this function's concern: DoJSON's decoder reports
// it, and it is not retried.
func (a *attempt) bufferJSON(resp *http.Response) (*http.Response, error) {
	defer resp.Body.Close()
	var buf bytes.Buffer
	// Grown from the declared length only up to a point: a server may
	// declare what it never sends. The bytes.MinRead more are the room
	// buf.ReadFrom wants free before each read, the last one (which finds
	// the end) included: without them it allocates twice more.
	buf.Grow(int(min(max(resp.ContentLength, 0), a.cl.bufferLimit+1, maxPresize)) + bytes.MinRead)
	n, err := a.readWatched(&buf, a.cl.bufferLimit+1)
	if err != nil {
		return nil, &truncatedError{read: n, declared: resp.ContentLength, err: err}
	}
	resp.Body = newMemBody(buf.Bytes())
	return resp, nil
}

// memBody is a response body held in memory (see bufferJSON): one
// allocation where io.NopCloser(bytes.NewReader(b)) takes two, and
// DecodeJSON decodes its bytes without copying them into a decoder.
type memBody struct {
	bytes.Reader
	b []byte
}

func newMemBody(b []byte) *memBody {
	m := &memBody{b: b}
	m.Reset(b)
	return m
}

// Close does nothing: the bytes stay readable, as io.NopCloser's did.
func (*memBody) Close() error { return nil }

// DecodeJSON decodes the first JSON value of at most limit bytes of body
// into out, as json.NewDecoder(io.LimitReader(body, limit)).Decode(out)
// does, with the same result and error. A body DoJSON or Request.BufferBody
// holds in memory, unread, is decoded in place: without the decoder's copy
// of the bytes when it is one valid JSON value, the common case.
func DecodeJSON(body io.Reader, limit int64, out any) error {
	if m, ok := body.(*memBody); ok && m.Len() == len(m.b) && int64(len(m.b)) <= limit {
		if json.Unmarshal(m.b, out) == nil {
			return nil
		}
		// Not one value alone (trailing data, a syntax or type error):
		// the decoder gives its own result and error, as before.
	}
	return json.NewDecoder(io.LimitReader(body, limit)).Decode(out)
}

// maxPresize bounds the buffer reserved from a Content-Length before the
// bytes arrive; beyond it the buffer grows as they do.
const maxPresize = 64 << 10

// maxAnswerBody bounds what bufferAnswer keeps of an error or redirect
// body: more than apierr.FromResponse and the retry drain ever read.
const maxAnswerBody = 64 << 10

// bufferAnswer reads the body of a 3xx, 4xx or 5xx answer (at most
// maxAnswerBody bytes) inside the attempt, watched like the wait for the
// headers: the transport reads such bodies itself (the retry drain, the
// *apierr.APIError's copy, the redirect), and a server that sent the
// headers and then stalled would otherwise hang the call. The status
// stands whatever happens to the body: what arrived before a failure or
// a stall is kept.
func (a *attempt) bufferAnswer(resp *http.Response) {
	var buf bytes.Buffer
	buf.Grow(int(min(max(resp.ContentLength, 0), maxAnswerBody, maxPresize)))
	_, _ = a.readWatched(&buf, maxAnswerBody)
	_ = resp.Body.Close()
	resp.Body = newMemBody(buf.Bytes())
}

// readWatched reads at most limit bytes of the attempt's response body
// into buf, ending the attempt when no byte arrives for the header bound
// (ResponseHeaderTimeout): the registration is renewed as bytes arrive,
// at most every sixteenth of the bound. A read ended that way returns a
// *headerTimeoutError for the response body.
func (a *attempt) readWatched(buf *bytes.Buffer, limit int64) (int64, error) {
	w := a.cl.c.watch
	if w == nil {
		return buf.ReadFrom(io.LimitReader(a.body, limit))
	}
	// Part of the attempt, so reading costs no allocation but the
	// registration's.
	a.read = watchedReader{r: a.body, left: limit, w: w, expire: a, last: time.Now()}
	wr := &a.read
	w.addEntry(&a.readEntry, a)
	wr.entry = &a.readEntry
	n, err := buf.ReadFrom(wr)
	if !wr.expired && !wr.entry.stop() {
		wr.expired = true
	}
	if wr.expired && err != nil {
		err = &headerTimeoutError{d: a.cl.c.headerTimeout, phase: phaseResponseBody}
	}
	return n, err
}

// watchedReader reads at most left bytes of r and renews a header-watch
// registration as they arrive.
type watchedReader struct {
	r       io.Reader
	left    int64
	w       *headerWatch
	expire  expirer
	entry   *watchEntry
	last    time.Time
	expired bool
}

func (r *watchedReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	if n > 0 && !r.expired {
		if now := time.Now(); now.Sub(r.last) >= r.w.d/16 {
			r.last = now
			if r.entry.stop() {
				r.entry = r.w.add(r.expire)
			} else {
				r.expired = true
			}
		}
	}
	return n, err
}
