package httpx

import (
	"io"
	"net/http"
	"time"
)

// BodyProgressTimeout wraps next so that a request body which stops
// arriving is cut off: the connection's read deadline is set d ahead
// before every read of the body, so only a pause of d without a byte
// fails (the read returns a timeout error, which ReceiveLimited answers
// 400 invalid_body). Unlike http.Server.ReadTimeout, which bounds the
// whole request, it never cuts off a slow but steady multi-gigabyte
// upload. It is meant for a server without ReadTimeout. A
// ResponseWriter without deadlines (httptest.ResponseRecorder) is
// served as is. d <= 0 disables it.
//
// Only the body is watched: a request without one (GET /pfc/{key}
// waiting for its job) gets no deadline, and the deadline is cleared
// once the body has been read to its end. Both matter because net/http
// keeps reading the connection in the background while the handler
// runs, to notice a client that goes away, and a deadline firing there
// cancels the request's context, so a long-running handler would
// otherwise be cut off d after its last body byte.
//
// Between requests the server's own IdleTimeout and ReadHeaderTimeout
// apply again (net/http resets the deadline).
func BodyProgressTimeout(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &progressBody{ReadCloser: r.Body, rc: http.NewResponseController(w), d: d}
		}
		next.ServeHTTP(w, r)
	})
}

type progressBody struct {
	io.ReadCloser
	rc *http.ResponseController
	d  time.Duration
}

func (b *progressBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.d))
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		// The whole body is in: from here on the handler's time is its own.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
