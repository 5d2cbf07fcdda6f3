package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// attempt is the state of one attempt (or redirect hop), allocated once:
// what httptrace tells about it, its header timer's verdict and the cancel
// of its context. Once the response headers are in, it is also the
// response body, which ends the attempt's context when closed.
type attempt struct {
	cl     *call
	trace  httptrace.ClientTrace
	cancel context.CancelFunc
	body   io.ReadCloser
	// headerEntry and readEntry are the first registrations of the wait
	// for the headers and of a body read here (readWatched); renewals
	// allocate their own.
	headerEntry, readEntry watchEntry
	// read is the watched read of a body the transport reads itself.
	read watchedReader

	// The caller's reads of the body (see Read), guarded by rmu: the
	// registration bounding them and when it was made, whether a read is
	// waiting, and whether the bound ran out during one.
	rmu         sync.Mutex
	rEntry      *watchEntry
	rRenewed    time.Time
	rInRead     bool
	rClosed     bool // Close ran: no registration any more
	bodyExpired bool
	// ctx is the attempt's context; rRead counts the bytes the caller's
	// reads returned, of declared (the Content-Length, -1 when unknown).
	ctx            context.Context
	rRead, declare int64

	getConn, gotConn, timedOut atomic.Bool

	mu        sync.Mutex
	saw102    bool
	header102 http.Header

	// The header watch's registration, renewed while the request body is
	// being sent (see watchBody); wmu guards watch and headersIn.
	wmu       sync.Mutex
	watch     *watchEntry
	headersIn bool // RoundTrip returned: nothing renews watch any more
	// hasBody: the request has a body, read through a progressBody. start
	// and renewedAt (nanoseconds since start, monotonic) throttle the
	// renewals; bodySent is set once the whole request was written.
	hasBody   bool
	start     time.Time
	renewedAt atomic.Int64
	bodySent  atomic.Bool
}

func (a *attempt) processing() (http.Header, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.header102, a.saw102
}

// got1xx is the attempt's httptrace Got1xxResponse hook (it runs on the
// transport's goroutine).
func (a *attempt) got1xx(code int, h textproto.MIMEHeader) error {
	if code != http.StatusProcessing {
		return nil
	}
	a.mu.Lock()
	a.saw102, a.header102 = true, http.Header(h).Clone()
	a.mu.Unlock()
	if a.cl.finalProcessing {
		return errFinal102
	}
	return nil
}

// expire ends an attempt whose response headers are late.
func (a *attempt) expire() {
	a.timedOut.Store(true)
	a.cancel()
}

// Read and Close make the attempt its response's body: closing it ends the
// attempt's context. Reads are bounded by the header watch while they
// wait for bytes: a body left to the caller (a download) that stops
// arriving for about the bound (at least fifteen sixteenths of it) ends
// the attempt with a *headerTimeoutError, while the time the caller spends
// between reads (writing what it read) does not count.
//
// One registration serves the reads of many: it is replaced at most every
// sixteenth of the bound, so a read costs no allocation and the Client's
// watch is not locked per read. It may run out between reads; expireRead
// then lets it lapse, and the next read registers anew.
func (a *attempt) Read(p []byte) (int, error) {
	w := a.cl.c.watch
	if w == nil {
		n, err := a.body.Read(p)
		return n, a.cutOff(n, err)
	}
	a.rmu.Lock()
	if a.bodyExpired {
		a.rmu.Unlock()
		return 0, &headerTimeoutError{d: w.d, phase: phaseResponseBody}
	}
	if a.rClosed {
		// A read after Close fails at once; it must not register again.
		a.rmu.Unlock()
		return a.body.Read(p)
	}
	if now := time.Now(); a.rEntry == nil || now.Sub(a.rRenewed) >= w.d/16 {
		if a.rEntry != nil {
			a.rEntry.stop()
		}
		a.rEntry, a.rRenewed = w.add((*readExpirer)(a)), now
	}
	a.rInRead = true
	a.rmu.Unlock()

	n, err := a.body.Read(p)

	a.rmu.Lock()
	a.rInRead = false
	expired := a.bodyExpired
	a.rmu.Unlock()
	if expired && !errors.Is(err, io.EOF) && (err != nil || n == 0) {
		// The bound ran out while this read waited: the attempt's context
		// is cancelled, so the body is unusable from here on.
		return n, &headerTimeoutError{d: w.d, phase: phaseResponseBody}
	}
	return n, a.cutOff(n, err)
}

// readExpirer is an attempt whose registration bounds the caller's reads.
type readExpirer attempt

func (r *readExpirer) expire() { (*attempt)(r).expireRead() }

// expireRead runs when the registration of the caller's reads runs out. It
// ends the attempt only while a read waits, and only for the current
// registration: that of an older one, racing its replacement, is ignored.
func (a *attempt) expireRead() {
	a.rmu.Lock()
	defer a.rmu.Unlock()
	if time.Since(a.rRenewed) < a.cl.c.watch.d {
		return // replaced since: the new registration runs
	}
	a.rEntry = nil
	if !a.rInRead {
		return // between reads: the caller's own time
	}
	a.bodyExpired = true
	a.cancel()
}

func (a *attempt) Close() error {
	a.rmu.Lock()
	a.rClosed = true
	if a.rEntry != nil {
		a.rEntry.stop()
		a.rEntry = nil
	}
	a.rmu.Unlock()
	err := a.body.Close()
	a.cancel()
	return err
}

// errFinal102 aborts the read of a response once a 102 ended an opted-in
// attempt.
var errFinal102 = errors.New("final 102 Processing")

// roundTrip runs one attempt (or redirect hop) with its own context:
//
//   - the Client's header watch (one timer for all its attempts, see
//     headerWatch) bounds the wait for the response headers
//     (ResponseHeaderTimeout) from the end of the request (see watchBody:
//     while the body is sent, it only ends a stalled upload); it stops
//     once they arrive; a body the transport reads itself (bufferJSON,
//     bufferAnswer) is watched again, by the same bound renewed as its
//     bytes arrive, and a body left to the caller read by read (Read);
//   - an informational 102 Processing ends the attempt at once when the
//     request's Endpoint set Final102, and also when the connection fails after
//     one (a server that answers a final 102 and closes); either way the
//     attempt's result is a synthetic 102 response that send turns into an
//     *apierr.APIError matching apierr.ErrStillProcessing;
//   - for a request without Replay or with SendOptions.FailOver, a failure
//     before any connection was obtained is marked as never sent (see neverSent), which such
//     requests may retry or move. Only they use that mark, so only theirs
//     have the connection hooks;
//   - for DoJSON and Endpoint.Buffer, a 2xx answer is read whole here
//     (bufferJSON), so that a body cut off mid-read fails the attempt with
//     a *truncatedError, which the retry policy sees like a connection
//     error.
//
// The attempt's context ends when its response body is closed.
func (cl *call) roundTrip(rt http.RoundTripper, r *http.Request) (*http.Response, error) {
	a := &attempt{cl: cl}
	ctx, cancel := context.WithCancel(r.Context())
	a.ctx, a.cancel = ctx, cancel
	a.trace.Got1xxResponse = a.got1xx
	if cl.noReplay || cl.failOver {
		a.trace.GetConn = func(string) { a.getConn.Store(true) }
		a.trace.GotConn = func(httptrace.GotConnInfo) { a.gotConn.Store(true) }
	}
	w := cl.c.watch
	upload := w != nil && isUpload(r)
	if upload {
		a.trace.WroteRequest = a.wroteRequest
	}
	ctx = httptrace.WithClientTrace(ctx, &a.trace)
	r = r.WithContext(ctx) // the attempt's own shallow copy
	if upload {
		a.watchBody(r)
	}
	if w != nil {
		w.addEntry(&a.headerEntry, a)
		a.watch = &a.headerEntry
	}
	resp, err := rt.RoundTrip(r)
	a.wmu.Lock()
	a.headersIn = true
	watch := a.watch
	a.wmu.Unlock()
	if watch != nil && !watch.stop() && err == nil {
		// The timer fired as the headers arrived: the body is cut off.
		drainAndClose(resp.Body)
		resp, err = nil, a.timeoutError()
	}
	if h, ok := a.processing(); ok && (cl.finalProcessing || err != nil) {
		if resp != nil {
			drainAndClose(resp.Body)
		}
		cancel()
		if h == nil {
			h = http.Header{}
		}
		return &http.Response{
			Status: "102 Processing", StatusCode: http.StatusProcessing,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: http.NoBody, ContentLength: 0, Request: r,
		}, nil
	}
	if err != nil {
		cancel()
		if a.timedOut.Load() {
			err = a.timeoutError()
		}
		if a.getConn.Load() && !a.gotConn.Load() {
			err = &notSentError{err: err}
		}
		return nil, err
	}
	a.body, a.declare = resp.Body, resp.ContentLength
	resp.Body = a
	switch {
	case cl.bufferJSON && resp.StatusCode/100 == 2 && resp.StatusCode != http.StatusNoContent:
		return a.bufferJSON(resp)
	case resp.StatusCode >= 300:
		a.bufferAnswer(resp)
	}
	return resp, nil
}

// watchBody makes the header watch start its bound once the request is
// sent, not when the attempt starts: an upload longer than
// ResponseHeaderTimeout would otherwise be cut on every attempt. While the
// transport reads the body (as it writes it) the registration is renewed at
// most every sixteenth of the bound, so an upload that makes no progress
// for the whole bound still ends; once the request is written
// (wroteRequest) it is renewed one last time, and the wait for the headers
// gets the full bound. r is the attempt's own shallow copy.
func (a *attempt) watchBody(r *http.Request) {
	a.start, a.hasBody = time.Now(), true
	r.Body = &progressBody{ReadCloser: r.Body, a: a}
	if getBody := r.GetBody; getBody != nil {
		// The transport rewinds through GetBody when a reused connection
		// failed before the request was written.
		r.GetBody = func() (io.ReadCloser, error) {
			b, err := getBody()
			if err != nil || b == nil || b == http.NoBody {
				return b, err
			}
			return &progressBody{ReadCloser: b, a: a}, nil
		}
	}
}

// smallBody is the largest request body sent without watchBody: the
// socket buffers take it whole, so writing it cannot stall, and the
// transport keeps its faster copy for it (progressBody hides io.WriterTo).
const smallBody = 64 << 10

// isUpload reports whether r's body is watched while it is sent: one of
// unknown length or over smallBody. (A body of Content-Length 0 is probed
// by the transport; it is left alone.)
func isUpload(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && (r.ContentLength < 0 || r.ContentLength > smallBody)
}

// wroteRequest is the attempt's httptrace WroteRequest hook; a failed
// write (the connection closed under a stalled upload) changes nothing.
func (a *attempt) wroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err != nil {
		return
	}
	a.bodySent.Store(true)
	a.renew()
}

// progress is called after each read of the request body that returned
// bytes; it renews the header watch when the last renewal is old enough.
func (a *attempt) progress() {
	now := int64(time.Since(a.start))
	if now-a.renewedAt.Load() < int64(a.cl.c.headerTimeout/16) {
		return
	}
	a.renewedAt.Store(now)
	a.renew()
}

// renew restarts the attempt's header bound from now, unless the headers
// are in or the bound has already expired (the attempt is being ended).
func (a *attempt) renew() {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.headersIn || a.watch == nil || !a.watch.stop() {
		return
	}
	a.watch = a.cl.c.watch.add(a)
}

// timeoutError is the error of an attempt whose header bound expired.
func (a *attempt) timeoutError() error {
	phase := phaseHeaders
	if a.hasBody && !a.bodySent.Load() {
		phase = phaseRequestBody
	}
	return &headerTimeoutError{d: a.cl.c.headerTimeout, phase: phase}
}

// progressBody is a request body that reports its reads to the attempt.
type progressBody struct {
	io.ReadCloser
	a *attempt
}

func (b *progressBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.a.progress()
	}
	return n, err
}

// headerTimeoutError is an attempt whose response headers did not arrive in
// time, or whose request body, or the response body the transport reads
// itself (see readWatched), made no progress for as long. It is retried
// like any connection failure (unless its Endpoint forbids Replay).
type headerTimeoutError struct {
	d     time.Duration
	phase timeoutPhase
}

// timeoutPhase is what an attempt was waiting for when its bound ran out.
type timeoutPhase int

const (
	phaseHeaders      timeoutPhase = iota // the response headers
	phaseRequestBody                      // the request body was being sent
	phaseResponseBody                     // bytes of a response body read by the transport
)

func (e *headerTimeoutError) Error() string {
	switch e.phase {
	case phaseRequestBody:
		return fmt.Sprintf("request body made no progress for %s (ResponseHeaderTimeout)", e.d)
	case phaseResponseBody:
		return fmt.Sprintf("response body made no progress for %s (ResponseHeaderTimeout)", e.d)
	}
	return fmt.Sprintf("no response headers within %s (ResponseHeaderTimeout)", e.d)
}
func (e *headerTimeoutError) Unwrap() error { return apierr.ErrResponseHeaderTimeout }

// Timeout reports true, as net.Error timeouts do.
func (e *headerTimeoutError) Timeout() bool { return true }

// Temporary reports true (net.Error).
func (e *headerTimeoutError) Temporary() bool { return true }

// notSentError marks a failure that happened before the transport obtained a
// connection: the request never left.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// NeverSent reports whether err, a call's error, proves that its last
// attempt never reached a server: no connection was obtained (for a
// request without Replay, or sent with SendOptions.FailOver), the dial was
// refused or failed, or the host did not resolve. With
// Outcome.RetriedAfterLanding false, no attempt of the call may have been
// processed, so it may be sent to another replica.
func NeverSent(err error) bool { return err != nil && neverSent(err) }

// unreachable reports whether err, an attempt's error, says that the
// server could not be reached: the dial was refused or failed (timed out,
// no route), or the host name did not resolve. Unlike neverSent it does
// not take "no connection obtained" alone, which a TLS handshake failure
// (a server that was reached) also gives.
func unreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED)
}

// neverSent reports whether err proves that no byte of the request reached
// a server: no connection was obtained (httptrace), or dialing failed
// (refused, unreachable, DNS).
func neverSent(err error) bool {
	var ns *notSentError
	return errors.As(err, &ns) || unreachable(err)
}
