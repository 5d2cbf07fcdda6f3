package hosted

import (
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// apiKeyHeader carries the API key on every API request, and never on
// pre-signed uploads, downloads or redirects to another host.
const apiKeyHeader = "X-API-KEY"

// apiVersion is the last path segment of every base URL.
const apiVersion = "v2"

// Client talks to the hosted correction API v2. It is safe for concurrent
// use. Create one with NewClient and reuse it.
type Client struct {
	http         *transport.Client
	pollDefaults poll.Options
	maxDownload  int64
	// queryMemo is the encoding of the last options StartJob sent.
	queryMemo atomic.Pointer[queryMemo]

	// Presets manages custom presets (/presets).
	Presets *PresetsService
}

// Option configures a Client. The same options, with the same names,
// configure the pfccontainer and bgcontainer clients.
type Option = clientopt.Option

// WithBaseURL sets the API's base URL, which ends with the version segment
// /v2, for example "https://api.example.com/v2" (a trailing slash is
// fine). It is required: the API documentation names no fixed host.
// NewClient refuses a base URL without /v2 with a *pfc.ValidationError naming
// BaseURL, rather than guessing where the version goes.
func WithBaseURL(baseURL string) Option { return clientopt.WithBaseURL(baseURL) }

// WithHTTPClient makes the client send requests through hc (its Transport,
// Timeout and Jar). The SDK installs its own redirect policy on a copy, so
// hc itself is not modified.
func WithHTTPClient(hc *http.Client) Option { return clientopt.WithHTTPClient(hc) }

// WithLogger logs each attempt, retry and response at Debug/Warn level.
// Keys and pre-signed signatures are redacted. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return clientopt.WithLogger(l) }

// WithRetries sets how often a failed request is retried (connection
// errors, 408, 429 and 5xx other than 501) and the bounds of the jittered
// exponential backoff between attempts. maxRetries < 0 disables retries.
func WithRetries(maxRetries int, minWait, maxWait time.Duration) Option {
	return clientopt.WithRetries(maxRetries, minWait, maxWait)
}

// WithMaxRetryAfter caps how long a server's Retry-After header can make
// the client wait before the next attempt (default 30 s).
func WithMaxRetryAfter(d time.Duration) Option { return clientopt.WithMaxRetryAfter(d) }

// WithUserAgent appends product to the User-Agent "pfc-go/<version>".
func WithUserAgent(product string) Option { return clientopt.WithUserAgent(product) }

// WithResponseHeaderTimeout bounds how long each attempt waits for the
// response headers (default 5 minutes; a negative d means no bound), so a
// silent server cannot hang a call made without a context deadline. It
// counts from the end of the upload, and during an upload it only ends one
// that makes no progress for that long, so uploads of any size work.
// Afterwards it bounds each wait for the bytes of the answer: a JSON
// answer, error body or download that stops arriving for that long ends
// the call, while the time spent writing what arrived does not count, so
// downloads of any size work. An attempt that runs out is retried like a
// connection error (a download stalled mid-body is not: its call fails);
// the final error matches pfc.ErrResponseHeaderTimeout.
func WithResponseHeaderTimeout(d time.Duration) Option {
	return clientopt.WithResponseHeaderTimeout(d)
}

// WithPolling sets the defaults used by Wait (when it is given nil options)
// and by Correct.
func WithPolling(o WaitOptions) Option { return clientopt.WithPolling(o.pollOptions()) }

// WithMaxDownloadSize bounds the bytes one download (Download, Correct,
// CorrectFile) writes; 0, the default, means no bound. A larger corrected
// file fails with a *pfc.DownloadTooLargeError (matching pfc.ErrDownloadTooLarge);
// CorrectFile then leaves no file behind. Downloads ask for the identity
// encoding, so the bound applies to the bytes on the wire.
func WithMaxDownloadSize(n int64) Option { return clientopt.WithMaxDownloadSize(n) }

// errorf is fmt.Errorf with the message passed through the client's
// redactor: use it for every error string that quotes a server's answer
// or a user's input.
func (c *Client) errorf(format string, args ...any) error {
	return apierr.Redactf(c.http.Redact, format, args...)
}

// NewClient returns a client that authenticates with apiKey. WithBaseURL is
// required. Invalid settings are reported as a *pfc.ValidationError.
func NewClient(apiKey string, opts ...Option) (_ *Client, err error) {
	var fe apierr.FieldErrors
	if apiKey == "" {
		fe.Add("apiKey", "is required")
	}
	if base := clientopt.Apply(opts).BaseURL; base != "" {
		if u, err := url.Parse(base); err == nil && path.Base(strings.TrimSuffix(u.Path, "/")) != apiVersion {
			fe.Add("BaseURL", "must end with the API version /%s, as in https://api.example.com/%s", apiVersion, apiVersion)
		}
	}
	tc, cfg, err := clientopt.Build(opts, clientopt.Auth{Header: apiKeyHeader, Value: apiKey}, fe)
	if err != nil {
		return nil, err
	}
	c := &Client{http: tc, pollDefaults: cfg.Polling, maxDownload: cfg.MaxDownloadSize}
	c.Presets = &PresetsService{client: c}
	return c, nil
}
