package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/poll"
)

// retryableStatus reports whether a response status is worth another
// attempt: 408, 429 and every 5xx except 501 (Not Implemented never heals).
func retryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return true
	case code >= 500 && code <= 599:
		return code != http.StatusNotImplemented
	}
	return false
}

// permanentErrorTexts are net/http errors without a type that no retry can
// fix; like retryablehttp we have to match their text.
var permanentErrorTexts = []string{
	"unsupported protocol scheme",
	"invalid header field",
	"server gave HTTP response to HTTPS client",
	"certificate is not trusted",
	"failed to parse Location header",
}

// retryableError reports whether a transport error is worth another attempt.
// Connection-level failures (refused, reset, EOF, per-attempt timeouts of an
// http.Client.Timeout) are; cancellations, certificate problems, malformed
// requests, redirect-policy stops and failures of the caller's body source
// are not.
func retryableError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrBodyNotReplayable) {
		return false
	}
	var (
		be       *bodyError
		re       *redirectError
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		rootsErr x509.SystemRootsError
	)
	if errors.As(err, &be) || errors.As(err, &re) || errors.As(err, &certErr) ||
		errors.As(err, &unknown) || errors.As(err, &hostErr) || errors.As(err, &invalid) ||
		errors.As(err, &rootsErr) {
		return false
	}
	msg := err.Error()
	for _, t := range permanentErrorTexts {
		if strings.Contains(msg, t) {
			return false
		}
	}
	return true
}

// backoff returns the wait before retry number retry (0-based): the
// SDK's one backoff, poll.ComputeDelay (equal jitter over min·2^retry
// capped at max), with the client's jitter source.
func (c *Client) backoff(retry int) time.Duration {
	return poll.ComputeDelayJitter(retry, c.minWait, c.maxWait, -1, c.jitter)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date
// (a date in the past means "now").
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(365*24*time.Hour/time.Second) { // avoid overflow; capped later anyway
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

// retryWait returns the wait before retry number retry after resp (nil for a
// transport error): the server's Retry-After capped at MaxRetryAfter when
// present and valid, the jittered exponential backoff otherwise.
func (c *Client) retryWait(retry int, resp *http.Response) (wait time.Duration, fromServer bool) {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), c.now()); ok {
			return min(d, c.maxRetryAfter), true
		}
	}
	return c.backoff(retry), false
}
