package httpx

import (
	"log/slog"
	"net/http"
	"time"
)

// RequestIDHeader carries the id every answer of the mocks has.
const RequestIDHeader = "X-Request-Id"

// RequestID wraps next: every answer gets an X-Request-Id header
// ("req_" and 16 hex digits), and each request is logged on log at debug
// level with its method, path, status and duration. log may be nil.
func RequestID(log *slog.Logger, next http.Handler) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := "req_" + NewID(8)
		w.Header().Set(RequestIDHeader, id)
		rw := &StatusRecorder{ResponseWriter: w}
		start := time.Now()
		next.ServeHTTP(rw, r)
		log.Debug("request", "id", id, "method", r.Method, "path", r.URL.Path, "status", rw.Status, "elapsed", time.Since(start))
	})
}

// StatusRecorder is a ResponseWriter that remembers the final status
// written (200 on a Write without WriteHeader; the status of
// WriteFinalStatus, which finds it through Unwrap). Informational 1xx
// answers written with WriteHeader are not recorded.
// http.ResponseController reaches the underlying writer through Unwrap
// (Flush, Hijack, deadlines).
type StatusRecorder struct {
	http.ResponseWriter
	// Status is the final status, 0 until one is written.
	Status int
}

// WriteHeader records code (unless informational or already recorded)
// and passes it on.
func (r *StatusRecorder) WriteHeader(code int) {
	if r.Status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		r.Status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records 200 if no status was written, and passes b on.
func (r *StatusRecorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap returns the underlying writer (for http.ResponseController).
func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
