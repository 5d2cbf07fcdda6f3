package pfc

import (
	"log/slog"
	"net/http"
	"strings"
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

// WithLogger logs each attempt and response at Debug level, each retry at
// Warn, and, at Warn, "pfc: request failed" when a request fails with a
// retry due but not made (retries run out, the wait would pass the
// context deadline), with its method, URL, attempts and error, and each
// cut of a WithRateLimit budget after a 429. Records made inside a flow
// name it ("op"); those of an answer or a failure say how long it took
// ("duration"). Every key and URL signature is redacted. Without it
// nothing is logged.
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

// WithRateLimit bounds the requests one client sends to the service to
// perSecond on average (0: no bound), burst at once after a pause (0: 1),
// across all its calls and bulk runs; requests to pre-signed URLs (hosted
// uploads and result downloads) do not count. A 429 holds every request
// of the client back until its Retry-After (capped by WithMaxRetryAfter)
// has passed and halves the rate; later answers raise it again step by
// step. See "Rate budget" in the package documentation.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(c *config.Config) { c.RateLimit, c.RateBurst = perSecond, burst }
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

// WithReplicas spreads a container client's work over several replicas of
// the container, one base URL each (instead of WithBaseURL): new work goes
// to the replica with the fewest calls in flight, a job's later calls to
// the replica that accepted it, and a replica that is down is set aside.
// A URL given twice, in any spelling ("HTTP://A:1", "http://a:1/."), is
// refused. The hosted client refuses it. See "Replicas" in the package
// documentation of pfccontainer and bgcontainer.
func WithReplicas(baseURLs ...string) Option {
	return func(c *config.Config) { c.Replicas.URLs = append([]string(nil), baseURLs...) }
}

// WithReplicaHost is WithReplicas for replicas behind one host name that
// resolves to several addresses (a Kubernetes headless Service), e.g.
// "http://bg.studio.svc:8000": one replica per address, resolved again
// every 30 seconds.
func WithReplicaHost(baseURL string) Option {
	return func(c *config.Config) { c.Replicas.Host = baseURL }
}

// WithReplicaWeight gives the replica at baseURL (one of WithReplicas, or
// an address of WithReplicaHost such as "http://10.0.0.7:8000") weight
// times the work of a replica of weight 1, the default: a box with 4 GPUs
// takes weight 4. A weight is from 1 to 1,000,000.
func WithReplicaWeight(baseURL string, weight int) Option {
	return func(c *config.Config) {
		if c.Replicas.Weights == nil {
			c.Replicas.Weights = map[string]int{}
		}
		c.Replicas.Weights[strings.TrimSuffix(baseURL, "/")] = weight
	}
}
