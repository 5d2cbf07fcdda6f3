package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
)

// Unavailable is the 503 of a backend that is shutting down.
func Unavailable() *Error {
	return Errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down")
}

// ReceiveLimited streams body into a temporary blob of store, enforcing
// limit bytes, for a request that declared contentLength (-1: unknown).
// closing is the backend's lifetime context (cancelled by its Close).
//
// A declared length above limit is a 413 before a byte is read; a body
// that passes the limit while streaming is a 413 as soon as it does;
// a body that breaks off is a 400 invalid_body; once closing is done (the
// body was aborted by AbortBodyOnClose) it is a 503 unavailable. Those
// errors are *Error. Any other error is the store's own (its disk): answer
// it with Internal, which keeps the server's paths out of the answer.
// Nothing is kept on error.
func ReceiveLimited(closing context.Context, store *blobstore.Store, body io.Reader, contentLength, limit int64) (*blobstore.Temp, error) {
	if contentLength > limit {
		return nil, Errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "Content-Length %d exceeds the limit of %d bytes", contentLength, limit)
	}
	tmp, err := store.Receive(body, limit)
	switch {
	case err == nil:
		return tmp, nil
	case errors.Is(err, blobstore.ErrTooLarge):
		return nil, Errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "the body exceeds the limit of %d bytes", limit)
	case closing.Err() != nil:
		return nil, Unavailable()
	case errors.Is(err, blobstore.ErrRead):
		return nil, Errorf(http.StatusBadRequest, CodeInvalidBody, "%v", err)
	default:
		return nil, err
	}
}

// AbortBodyOnClose makes the end of closing interrupt the reads of the
// request body, with a read deadline on the connection, so that a stalled
// upload cannot hold a backend's Close (which waits for every body being
// received). Call the returned function when the handler is done. A
// ResponseWriter without a connection (httptest.ResponseRecorder) leaves
// the reads as they are.
func AbortBodyOnClose(closing context.Context, w http.ResponseWriter) (stop func() bool) {
	rc := http.NewResponseController(w)
	return context.AfterFunc(closing, func() { _ = rc.SetReadDeadline(time.Now()) })
}
