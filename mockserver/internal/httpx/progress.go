package httpx

import (
	"io"
	"net/http"
	"time"
)

// BodyProgressTimeout wraps next so that a request body which stops
// arriving is cut off: the connection's read deadline is set d ahead
// before the handler starts and again before every read of the body, so
// only a pause of d without a byte fails (the read returns a timeout
// error, which ReceiveLimited answers 400 invalid_body). Unlike
// http.Server.ReadTimeout, which bounds the whole request, it never cuts
// off a slow but steady multi-gigabyte upload. A ResponseWriter without
// deadlines (httptest.ResponseRecorder) is served as is. d <= 0 disables
// it.
//
// Between requests the server's own IdleTimeout and ReadHeaderTimeout
// apply again (net/http resets the deadline).
func BodyProgressTimeout(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err == nil && r.Body != nil && r.Body != http.NoBody {
			r.Body = &progressBody{ReadCloser: r.Body, rc: rc, d: d}
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
	return b.ReadCloser.Read(p)
}
