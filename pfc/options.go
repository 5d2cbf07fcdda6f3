package pfc

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/config"
)

// Option is a transport option that configures a client of any of the
// three APIs: pass it to hosted.NewClient, pfccontainer.NewClient or
// bgcontainer.NewClient. Each client package declares its own Option type,
// which accepts these and its own options (hosted.WithPolling) but not
// another client's: those do not compile.
type Option = func(*config.Config)

// WithBaseURL sets the service's base URL; it is required. The hosted API's
// ends with its version segment, as in "https://api.example.com/v2"; a
// container's is where it listens, as in "http://localhost:80" (correction)
// or "http://gpu-box:8000" (background removal).
func WithBaseURL(baseURL string) Option {
	return func(c *config.Config) { c.BaseURL = baseURL }
}

// WithHTTPClient sends the requests through hc (its Transport, Timeout and
// Jar). The SDK installs its redirect policy on a copy; hc is not
// modified. An hc.Timeout bounds every attempt, a slow synchronous
// correction or a large download included: prefer a context deadline.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config.Config) { c.HTTPClient = hc }
}

// WithLogger logs each attempt, retry and response at Debug and Warn level,
// with every key and URL signature redacted. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config.Config) { c.Logger = l }
}

// WithRetries sets how often a failed request is retried (connection
// errors, 408, 429 and 5xx other than 501) and the bounds of the jittered
// exponential backoff between attempts; maxRetries < 0 disables retries.
// Requests that must not be sent twice, and answers each API documents as
// final, are not retried: see each client's package documentation.
func WithRetries(maxRetries int, minWait, maxWait time.Duration) Option {
	return func(c *config.Config) {
		c.MaxRetries, c.MinRetryWait, c.MaxRetryWait = maxRetries, minWait, maxWait
	}
}

// WithMaxRetryAfter caps how long a server's Retry-After header can make
// the client wait before the next attempt (default 30 s).
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config.Config) { c.MaxRetryAfter = d }
}

// WithUserAgent appends product to the User-Agent "pfc-go/<version>".
func WithUserAgent(product string) Option {
	return func(c *config.Config) { c.UserAgent = product }
}

// WithResponseHeaderTimeout bounds how long each attempt waits for the
// response headers after its upload (default 5 minutes; negative: no
// bound), and then each wait for more bytes of the answer. An upload or
// download that keeps moving is never cut, whatever its size. A timed-out
// attempt is retried like a connection error; the final error matches
// ErrResponseHeaderTimeout. The correction container answers only once the
// image is corrected: raise the bound there rather than lower it.
func WithResponseHeaderTimeout(d time.Duration) Option {
	return func(c *config.Config) { c.ResponseHeaderTimeout = d }
}

// WithMaxDownloadSize bounds the bytes one download writes (0, the default:
// no bound). A larger result fails with a *DownloadTooLargeError, and the
// file variants leave no file behind. Downloads ask for the identity
// encoding, so the bound applies to the bytes on the wire.
func WithMaxDownloadSize(n int64) Option {
	return func(c *config.Config) { c.MaxDownloadSize = n }
}
