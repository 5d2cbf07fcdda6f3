package httpx

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ErrFinalStatus is wrapped by WriteFinalStatus's errors.
var ErrFinalStatus = errors.New("httpx: writing a raw final status")

// WriteFinalStatus answers the request with a raw final status line, such
// as "HTTP/1.1 102 Processing", and closes the connection. The
// background-removal container answers GET /DownloadImage this way while
// a job runs; net/http cannot (WriteHeader(102) sends an informational
// 102 and then a 200 when the handler returns).
//
// It hijacks the connection, writes the status line, the headers already
// set on w (such as X-Request-Id) plus Date and "Connection: close", an
// empty line, and closes the connection; no body follows. Call it before
// anything else is written, and write nothing to w afterwards. code must
// be 100..999 and reason a single line (the phrase; empty means
// http.StatusText(code)). A StatusRecorder around w records code.
// It fails, writing nothing, where the connection cannot be hijacked
// (HTTP/2, httptest.ResponseRecorder).
func WriteFinalStatus(w http.ResponseWriter, code int, reason string) error {
	if code < 100 || code > 999 {
		return fmt.Errorf("%w: status %d is not a three-digit code", ErrFinalStatus, code)
	}
	if reason == "" {
		reason = http.StatusText(code)
	}
	if strings.ContainsAny(reason, "\r\n") {
		return fmt.Errorf("%w: the reason phrase must be one line", ErrFinalStatus)
	}
	hdr := w.Header().Clone()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFinalStatus, err)
	}
	defer conn.Close()
	for u := w; u != nil; {
		if sr, ok := u.(*StatusRecorder); ok {
			sr.Status = code
			break
		}
		uw, ok := u.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		u = uw.Unwrap()
	}
	hdr.Del("Content-Length")
	hdr.Del("Transfer-Encoding")
	hdr.Set("Connection", "close")
	if hdr.Get("Date") == "" {
		hdr.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	// Bytes the client sent beyond the request are dropped with the
	// connection; the status goes out before anything else.
	fmt.Fprintf(brw, "HTTP/1.1 %03d %s\r\n", code, reason)
	for _, k := range slices.Sorted(maps.Keys(hdr)) {
		for _, v := range hdr[k] {
			v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
			fmt.Fprintf(brw, "%s: %s\r\n", k, v)
		}
	}
	_, _ = brw.WriteString("\r\n")
	if err := brw.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrFinalStatus, err)
	}
	return nil
}
