package clientopt

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// Config is what the options set. Zero fields mean the defaults of package
// transport (and, for Polling, of the client).
type Config struct {
	// BaseURL is the service's base URL (required).
	BaseURL string
	// HTTPClient sends the requests; nil uses a pooled client. It is
	// shallow-copied and never modified.
	HTTPClient *http.Client
	// UserAgent is appended to "pfc-go/<version>".
	UserAgent string
	// Logger receives redacted per-attempt records; nil logs nothing.
	Logger *slog.Logger
	// MaxRetries, MinRetryWait and MaxRetryWait: see transport.Options.
	MaxRetries                 int
	MinRetryWait, MaxRetryWait time.Duration
	// MaxRetryAfter caps a server's Retry-After.
	MaxRetryAfter time.Duration
	// ResponseHeaderTimeout bounds the wait for each attempt's response
	// headers: 0 means transport.DefaultResponseHeaderTimeout, a negative
	// value means no bound.
	ResponseHeaderTimeout time.Duration
	// Polling holds the client's default wait-loop options.
	Polling poll.Options
	// MaxDownloadSize bounds the bytes a download writes; 0 means no bound.
	MaxDownloadSize int64
	// Replica holds the replica options (WithReplicas, WithReplicaHost).
	Replica ReplicaConfig
	// pollingSet records that WithPolling was used.
	pollingSet bool
}

// PollingSet reports whether WithPolling was given.
func (c Config) PollingSet() bool { return c.pollingSet }

// Option configures a client of any of the three APIs.
type Option func(*Config)

// WithBaseURL sets the base URL.
func WithBaseURL(baseURL string) Option { return func(c *Config) { c.BaseURL = baseURL } }

// WithHTTPClient sends requests through hc (a copy; hc is not modified).
func WithHTTPClient(hc *http.Client) Option { return func(c *Config) { c.HTTPClient = hc } }

// WithLogger logs attempts, retries and responses, redacted.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// WithRetries sets the retry count (negative: never) and backoff bounds.
func WithRetries(maxRetries int, minWait, maxWait time.Duration) Option {
	return func(c *Config) {
		c.MaxRetries, c.MinRetryWait, c.MaxRetryWait = maxRetries, minWait, maxWait
	}
}

// WithMaxRetryAfter caps a server's Retry-After.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Config) { c.MaxRetryAfter = d } }

// WithUserAgent appends product to the User-Agent.
func WithUserAgent(product string) Option { return func(c *Config) { c.UserAgent = product } }

// WithResponseHeaderTimeout bounds each attempt's wait for response headers
// after its request is sent, and any stall of its upload (0: the default,
// negative: none).
func WithResponseHeaderTimeout(d time.Duration) Option {
	return func(c *Config) { c.ResponseHeaderTimeout = d }
}

// WithPolling sets the client's default wait-loop options.
func WithPolling(o poll.Options) Option {
	return func(c *Config) { c.Polling, c.pollingSet = o, true }
}

// WithMaxDownloadSize bounds the bytes one download writes (0: no bound).
func WithMaxDownloadSize(n int64) Option { return func(c *Config) { c.MaxDownloadSize = n } }

// Apply returns the Config opts describe; nil options are skipped.
func Apply(opts []Option) Config {
	var c Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Auth is the credential a client sends, and the secrets to redact.
type Auth struct {
	// Header and Value are the credential header and its value; empty
	// means none.
	Header, Value string
	// Secrets are more strings to redact (a license key, ...).
	Secrets []string
}

// Build applies opts and returns the configured transport and the Config.
// Problems are reported all at once as an *apierr.ValidationError, after
// those already in fe (the client's own checks, such as a missing key).
func Build(opts []Option, auth Auth, fe apierr.FieldErrors) (*transport.Client, Config, error) {
	cfg := Apply(opts)
	fe = append(apierr.FieldErrors(nil), fe...)
	if cfg.primaryURL() == "" {
		fe.Add("BaseURL", "is required (use WithBaseURL)")
	}
	if cfg.MaxDownloadSize < 0 {
		fe.Add("MaxDownloadSize", "must not be negative, got %d", cfg.MaxDownloadSize)
	}
	fe = append(fe, cfg.Polling.Validate()...)
	if err := fe.Err(); err != nil {
		return nil, cfg, err
	}
	tc, err := transport.New(transportOptions(cfg, auth, cfg.primaryURL()))
	if err != nil {
		return nil, cfg, err
	}
	return tc, cfg, nil
}

// transportOptions are the transport settings of cfg for baseURL.
func transportOptions(cfg Config, auth Auth, baseURL string) transport.Options {
	return transport.Options{
		BaseURL:               baseURL,
		HTTPClient:            cfg.HTTPClient,
		UserAgent:             cfg.UserAgent,
		AuthHeader:            auth.Header,
		AuthValue:             auth.Value,
		Secrets:               auth.Secrets,
		MaxRetries:            cfg.MaxRetries,
		MinRetryWait:          cfg.MinRetryWait,
		MaxRetryWait:          cfg.MaxRetryWait,
		MaxRetryAfter:         cfg.MaxRetryAfter,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout,
		Logger:                cfg.Logger,
	}
}
