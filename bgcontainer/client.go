package bgcontainer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// redacted replaces the licence key wherever a Client is printed.
const redacted = "REDACTED"

// Client talks to one background-removal container. It is safe for
// concurrent use; create one with NewClient and reuse it. It holds the
// licence key; printing it (fmt with any verb, a copy of it, slog) never
// shows the key.
type Client struct {
	baseURL string
	// licenseKey is behind a pointer so that fmt, reflecting over a Client
	// held by value in an unexported field (where Format is not called),
	// prints an address rather than the key. nil: no key.
	licenseKey *secret
	http       *transport.Client
	// reps are the container's replicas (one for a single base URL);
	// http is the first one's transport.
	reps *replicas.Fleet
	wait poll.Options
	// retry paces the wait for a lost replica to answer again (the
	// transport's retry delays, pfc.WithRetries; tests set its Clock).
	retry poll.Options
	// maxDownload bounds a download (WithMaxDownloadSize; 0: none).
	maxDownload int64
	// flow is the routing state of the flow this copy of the client runs
	// (see onFlow): its calls go to the flow's replica. nil for the client
	// a caller holds.
	flow *replicas.Flow
}

// Option configures a Client: the transport options of package pfc
// (pfc.WithBaseURL, pfc.WithRetries ...) and WithPolling. An option of
// another client package does not compile here. SubmitImage is never
// resent once it may have reached the container, and a 500 of
// DownloadImage (processing failed) is final.
type Option func(*config.Config)

// WithPolling sets the wait options WaitImage uses when given nil, and
// that RemoveBackground uses unless its FlowOptions say otherwise.
func WithPolling(o pfc.WaitOptions) Option {
	return func(c *config.Config) { c.Polling, c.PollingSet = config.Wait(o), true }
}

// NewClient returns a client of the container at pfc.WithBaseURL (required)
// holding licenseKey, which Authorize applies, and RemoveBackground when
// the container is not activated. Unlike hosted's API key it may be empty:
// the API documentation activates a container once per instance and no
// other call carries a credential, so a keyless client works with a
// container someone else activated. Its Authorize fails with a
// *pfc.ValidationError naming license_key, its image calls to a container
// not activated with ErrNotActivated (pfc.ErrUnauthorized). Invalid
// settings, a key of blanks included, are reported as a
// *pfc.ValidationError naming them. The key never appears in errors or
// logs.
func NewClient(licenseKey string, opts ...Option) (_ *Client, err error) {
	var fe apierr.FieldErrors
	if licenseKey != "" {
		if err := validateLicenseKey(licenseKey); err != nil {
			var ve *pfc.ValidationError
			if errors.As(err, &ve) {
				for _, e := range ve.Errors {
					fe.Add("licenseKey", "%s", e.Message)
				}
			}
		}
	}
	tc, cfg, err := clientopt.Build(opts, clientopt.Auth{Secrets: []string{licenseKey}}, fe)
	if err != nil {
		return nil, err
	}
	auth := clientopt.Auth{Secrets: []string{licenseKey}}
	reps, err := clientopt.BuildReplicas(context.Background(), cfg, auth, tc, probe)
	if err != nil {
		return nil, err
	}
	c := &Client{baseURL: reps.First().URL, http: tc, reps: reps, wait: pollOf(pfc.WaitOptions(cfg.Polling)), maxDownload: cfg.MaxDownloadSize}
	c.retry = poll.Options{MinDelay: cfg.MinRetryWait, MaxDelay: cfg.MaxRetryWait}.WithDefaults(transport.DefaultMinRetryWait, transport.DefaultMaxRetryWait)
	if licenseKey != "" {
		c.licenseKey = &secret{licenseKey}
	}
	return c, nil
}

// secret is a licence key. Its pointer, not its text, is what a
// reflective printer finds in a Client.
type secret struct{ v string }

// key returns the licence key, "" when the client has none.
func (c *Client) key() string {
	if c.licenseKey == nil {
		return ""
	}
	return c.licenseKey.v
}

// CloseIdleConnections closes the idle keep-alive connections of the
// client's HTTP transport.
func (c *Client) CloseIdleConnections() {
	for _, r := range c.reps.All() {
		r.Value.CloseIdleConnections()
	}
}

// redact removes the licence key (in every form) from s.
func (c *Client) redact(s string) string {
	if c == nil || c.http == nil {
		return s
	}
	return c.http.Redact(s)
}

// String returns the same text as Format.
func (c Client) String() string { return fmt.Sprint(c) }

// Format prints the client as "bgcontainer.Client(<base URL>, license key
// REDACTED)" (or "no license key"; for several replicas, "replicas <URL>,
// <URL> (weight 3), ..." in place of the base URL) whatever the verb, so
// that %v, %+v and %#v never reveal the licence key, also in a URL. A nil
// *Client prints as "<nil>".
func (c Client) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "bgcontainer.Client(%s, %s)", c.where(), c.keyState())
}

// LogValue makes slog print the client without its licence key, a nil
// *Client as "<nil>".
func (c *Client) LogValue() slog.Value {
	if c == nil {
		return slog.StringValue("<nil>")
	}
	key := ""
	if c.licenseKey != nil {
		key = redacted
	}
	return slog.GroupValue(c.reps.LogAttr(c.baseURL, c.redact), slog.String("license_key", key))
}

// where is the client's base URL, or its replicas' (with their weights
// other than 1), redacted.
func (c *Client) where() string { return c.reps.Where(c.baseURL, c.redact) }

func (c Client) keyState() string {
	if c.licenseKey == nil {
		return "no license key"
	}
	return "license key " + redacted
}
