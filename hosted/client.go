package hosted

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// apiKeyHeader carries the API key on every API request, and never on
// pre-signed uploads, downloads or redirects to another host.
const apiKeyHeader = "X-API-KEY"

// Client talks to the hosted correction API v2. It is safe for concurrent
// use. Create one with NewClient and reuse it.
type Client struct {
	http *transport.Client
	wait WaitOptions

	// Presets manages custom presets (/presets).
	Presets *PresetsService
}

// Option configures a Client.
type Option func(*config)

type config struct {
	transport transport.Options
	wait      WaitOptions
}

// WithBaseURL sets the API's base URL, which ends with the version segment,
// for example "https://api.example.com/v2". It is required: the API
// documentation names no fixed host.
func WithBaseURL(baseURL string) Option {
	return func(c *config) { c.transport.BaseURL = baseURL }
}

// WithHTTPClient makes the client send requests through hc (its Transport,
// Timeout and Jar). The SDK installs its own redirect policy on a copy, so
// hc itself is not modified.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.transport.HTTPClient = hc }
}

// WithLogger logs each attempt, retry and response at Debug/Warn level.
// Keys and pre-signed signatures are redacted. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.transport.Logger = l }
}

// WithRetries sets how often a failed request is retried (connection
// errors, 408, 429 and 5xx other than 501) and the bounds of the jittered
// exponential backoff between attempts. maxRetries < 0 disables retries.
func WithRetries(maxRetries int, minWait, maxWait time.Duration) Option {
	return func(c *config) {
		c.transport.MaxRetries = maxRetries
		c.transport.MinRetryWait = minWait
		c.transport.MaxRetryWait = maxWait
	}
}

// WithMaxRetryAfter caps how long a server's Retry-After header can make
// the client wait before the next attempt (default 30 s).
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) { c.transport.MaxRetryAfter = d }
}

// WithUserAgent appends product to the User-Agent "pfc-go/<version>".
func WithUserAgent(product string) Option {
	return func(c *config) { c.transport.UserAgent = product }
}

// WithPolling sets the defaults used by Wait (when it is given nil options)
// and by Correct.
func WithPolling(o WaitOptions) Option {
	return func(c *config) { c.wait = o }
}

// NewClient returns a client that authenticates with apiKey. WithBaseURL is
// required. Invalid settings are reported as a *ValidationError.
func NewClient(apiKey string, opts ...Option) (*Client, error) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	var fe apierr.FieldErrors
	if apiKey == "" {
		fe.Add("apiKey", "is required")
	}
	if cfg.transport.BaseURL == "" {
		fe.Add("BaseURL", "is required (use WithBaseURL)")
	}
	if err := cfg.wait.validate(); err != nil {
		fe = append(fe, err...)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	cfg.transport.AuthHeader = apiKeyHeader
	cfg.transport.AuthValue = apiKey
	tc, err := transport.New(cfg.transport)
	if err != nil {
		return nil, err
	}
	c := &Client{http: tc, wait: cfg.wait}
	c.Presets = &PresetsService{client: c}
	return c, nil
}
