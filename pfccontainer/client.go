package pfccontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// Client talks to one correction container. It is safe for concurrent use.
// Create one with NewClient and reuse it.
type Client struct {
	http *transport.Client
	// reps are the container's replicas (one for a single base URL);
	// http is the first one's transport.
	reps *replicas.Fleet
	// base is the container's base URL as configured (WithBaseURL).
	base string
	// rebase moves corrected_url onto base (RebaseCorrectedURLs).
	rebase bool
	// maxDownload bounds a download (WithMaxDownloadSize; 0: none).
	maxDownload int64
}

// Option configures a Client. The same options, with the same names,
// configure the hosted and bgcontainer clients.
type Option = clientopt.Option

// WithBaseURL sets the container's base URL, e.g. "http://localhost:80"
// or "http://pfc:80" from another container of the same network. It is
// required: a container can be published on any host and port.
func WithBaseURL(baseURL string) Option { return clientopt.WithBaseURL(baseURL) }

// WithHTTPClient makes the client send requests through hc (its Transport,
// Timeout and Jar). The SDK installs its own redirect policy on a copy, so
// hc itself is not modified. An hc.Timeout bounds each attempt, including
// the synchronous correction: leave it 0 and use WithResponseHeaderTimeout
// or a context deadline instead.
func WithHTTPClient(hc *http.Client) Option { return clientopt.WithHTTPClient(hc) }

// WithLogger logs each attempt, retry and response at Debug/Warn level,
// with the method and the URL only. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return clientopt.WithLogger(l) }

// WithRetries sets how often a failed request is retried (connection
// errors, 408, 429 and 5xx other than 501, except the container's
// processingPFCErrorMessage, see the package documentation) and the bounds
// of the jittered exponential backoff between attempts. maxRetries < 0
// disables retries.
func WithRetries(maxRetries int, minWait, maxWait time.Duration) Option {
	return clientopt.WithRetries(maxRetries, minWait, maxWait)
}

// WithMaxRetryAfter caps how long a server's (or a proxy's) Retry-After
// header can make the client wait before the next attempt (default 30 s).
func WithMaxRetryAfter(d time.Duration) Option { return clientopt.WithMaxRetryAfter(d) }

// WithUserAgent appends product to the User-Agent "pfc-go/<version>".
func WithUserAgent(product string) Option { return clientopt.WithUserAgent(product) }

// WithResponseHeaderTimeout bounds how long each attempt waits for the
// response headers (default 5 minutes; a negative d means no bound). The
// container answers GET /pfc/{imageKey} only once the image is corrected,
// so the bound must cover the slowest correction (large images on few CPU
// cores): raise it rather than lower it. It counts from the end of the
// upload (during one it only ends an upload that makes no progress for that
// long), and afterwards it bounds each wait for the bytes of the answer (a
// JSON answer, error body or download that stops arriving for that long
// ends the call; time spent writing what arrived does not count), so
// uploads and downloads of any size work.
// An attempt that runs out is retried like a connection error; the final
// error matches ErrResponseHeaderTimeout.
func WithResponseHeaderTimeout(d time.Duration) Option {
	return clientopt.WithResponseHeaderTimeout(d)
}

// WithMaxDownloadSize bounds the bytes one download (Download,
// DownloadFile, CorrectFile) writes; 0, the default, means no bound. A
// larger corrected file fails with a *DownloadTooLargeError (matching
// ErrDownloadTooLarge); DownloadFile and CorrectFile then leave no file
// behind. Downloads ask for the identity encoding, so the bound applies to
// the bytes on the wire.
func WithMaxDownloadSize(n int64) Option { return clientopt.WithMaxDownloadSize(n) }

// NewClient returns a client of the container at WithBaseURL (required).
// The container documents no request authentication (it is licensed by
// files mounted in /sdk_license), so no credential is sent; put it behind
// a network boundary or an authenticating reverse proxy, whose header a
// custom WithHTTPClient transport can add (to requests for the proxy's
// host only: the same transport fetches corrected_url, which may name
// another host). Invalid settings are reported
// all at once as a *ValidationError naming the options' fields.
func NewClient(opts ...Option) (*Client, error) {
	tc, cfg, err := clientopt.Build(opts, clientopt.Auth{}, nil)
	if err != nil {
		return nil, exportErr(err)
	}
	reps, err := clientopt.BuildReplicas(context.Background(), cfg, clientopt.Auth{}, tc, probe)
	if err != nil {
		return nil, exportErr(err)
	}
	return &Client{http: tc, reps: reps, base: reps.First().URL, maxDownload: cfg.MaxDownloadSize}, nil
}

// RebaseCorrectedURLs returns a client sharing c's connections and
// settings that rewrites every corrected_url onto c's base URL (keeping
// the /output/... tail) before returning it or downloading from it.
//
// Use it when the container's PFC_SITE_URL names a host this client
// cannot reach: the default http://localhost seen from another machine or
// container, or a site URL of the container's internal network. Do not use
// it when PFC_SITE_URL is set to an address the client can reach that
// serves /output differently from the API (a CDN or gateway). The
// container's own answer stays in Correction.ReportedURL.
func (c *Client) RebaseCorrectedURLs() *Client {
	cc := *c
	cc.rebase = true
	return &cc
}

// BaseURL returns the container's base URL the client was built with.
func (c *Client) BaseURL() string { return c.base }

// CloseIdleConnections closes the idle keep-alive connections of the
// client's transport (when the container is going away).
func (c *Client) CloseIdleConnections() {
	for _, r := range c.reps.All() {
		r.Value.CloseIdleConnections()
	}
}

// apiError turns an error of the transport for a call of ep into the
// container's typed error: an API error whose body names one of the
// container's message ids becomes an *Error of that row, with the public
// *APIError as its cause; anything else gets the package's public error
// types (exportErr).
func apiError(ep Endpoint, err error) error {
	var ae *apierr.APIError
	if !errors.As(err, &ae) {
		return exportErr(err)
	}
	pub := exportErr(err)
	if e := classify(ae.StatusCode, ae.Code, ae.Message, ae.Parameter, pub); e != nil {
		e.Endpoint, e.RequestID = ep, ae.RequestID
		return e
	}
	return pub
}

// maxJSONBody bounds a JSON answer read; the container's are a few
// hundred bytes.
const maxJSONBody = 1 << 20

// getJSON sends r (asking for JSON, with the container's retry policy)
// and decodes its 2xx answer into out. A body that is not one JSON value
// of out's shape, or larger than maxJSONBody, is a *ResponseError.
// key is the imageKey the call is about (its replica), "" for new work.
func (c *Client) getJSON(ctx context.Context, ep Endpoint, key string, r *transport.Request, out any) error {
	r.Header = http.Header{"Accept": {"application/json"}}
	r.Permanent = permanent
	r.BufferBody = true // an answer cut off mid-body is retried (not for NoReplay)
	r.BufferLimit = maxJSONBody
	resp, err := replicas.Send(ctx, c.reps, key, r, replicaPolicy)
	if err != nil {
		return apiError(ep, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// A redirect a custom CheckRedirect chose not to follow.
		method := r.Method
		if method == "" {
			method = http.MethodGet
		}
		return exportErr(c.http.StatusError(method, resp))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJSONBody+1))
	if err != nil {
		return c.errorf("pfc: %s: reading the response: %w", ep, err)
	}
	if len(b) > maxJSONBody {
		return &ResponseError{Endpoint: ep, Reason: fmt.Sprintf("body larger than %d bytes", maxJSONBody)}
	}
	if err := json.Unmarshal(b, out); err != nil {
		re := &ResponseError{Endpoint: ep, Reason: "not a JSON object of the documented shape"}
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			// te.Value copies a whole offending number: quote an excerpt.
			re.Field = c.quote(te.Field, apierr.MaxQuotedName)
			re.Reason = "has the wrong type " + c.quote(te.Value, apierr.MaxQuotedValue)
		case errors.As(err, &se):
			re.Reason = fmt.Sprintf("malformed JSON at byte %d", se.Offset)
		case len(bytes.TrimSpace(b)) == 0:
			re.Reason = "empty body"
		}
		return re
	}
	return nil
}

// errorf is fmt.Errorf with the message passed through the client's
// redactor: for every error string that quotes a server's answer.
func (c *Client) errorf(format string, args ...any) error {
	return apierr.Redactf(c.http.Redact, format, args...)
}

// quote returns the container's text (or a caller's) as an error string
// quotes it: redacted first, then on one line and cut to at most max
// bytes, so that not even a prefix of a secret survives the cut.
func (c *Client) quote(s string, max int) string { return apierr.Excerpt(c.http.Redact, s, max) }
