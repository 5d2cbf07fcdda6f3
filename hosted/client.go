package hosted

import (
	"net/url"
	"path"
	"strings"
	"sync/atomic"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
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

// Option configures a Client: the transport options of package pfc
// (pfc.WithBaseURL, pfc.WithRetries ...) and WithPolling. An option of
// another client package does not compile here.
type Option func(*config.Config)

// WithPolling sets the wait options Wait uses when given nil, and that the
// one-call flows use unless their FlowOptions say otherwise.
func WithPolling(o pfc.WaitOptions) Option {
	return func(c *config.Config) { c.Polling, c.PollingSet = config.Wait(o), true }
}

// CloseIdleConnections closes the idle keep-alive connections of the
// client's HTTP transport.
func (c *Client) CloseIdleConnections() {
	c.http.CloseIdleConnections()
}

// errorf is fmt.Errorf with the message passed through the client's
// redactor: use it for every error string that quotes a server's answer
// or a user's input.
func (c *Client) errorf(format string, args ...any) error {
	return apierr.Redactf(c.http.Redact, format, args...)
}

// NewClient returns a client that authenticates with apiKey, which is
// required (every call of the API needs it): an empty or blank key, or
// one with control characters, is refused. pfc.WithBaseURL is required;
// the base URL ends with /v2. Invalid settings are reported as a
// *pfc.ValidationError naming them.
func NewClient(apiKey string, opts ...Option) (_ *Client, err error) {
	var fe apierr.FieldErrors
	if strings.TrimSpace(apiKey) == "" {
		fe.Add("apiKey", "is required") // blank too, as bgcontainer's licenseKey
	}
	applied := config.Apply(opts)
	for _, o := range []struct {
		name  string
		given bool
	}{
		{"WithReplicas", len(applied.Replicas.URLs) > 0},
		{"WithReplicaHost", applied.Replicas.Host != ""},
		{"WithReplicaWeight", len(applied.Replicas.Weights) > 0},
	} {
		if o.given {
			fe.Add(o.name, "applies to the container clients only: the hosted API is one service")
		}
	}
	if base := applied.BaseURL; base != "" {
		if u, err := url.Parse(base); err == nil && path.Base(strings.TrimSuffix(u.Path, "/")) != apiVersion {
			fe.Add("BaseURL", "must end with the API version /%s, as in https://api.example.com/%s", apiVersion, apiVersion)
		}
	}
	tc, cfg, err := clientopt.Build(opts, clientopt.Auth{Header: apiKeyHeader, Value: apiKey, Name: "apiKey"}, fe)
	if err != nil {
		return nil, err
	}
	c := &Client{http: tc, pollDefaults: pollOf(pfc.WaitOptions(cfg.Polling)), maxDownload: cfg.MaxDownloadSize}
	c.Presets = &PresetsService{client: c}
	return c, nil
}
