package transport

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/ratelimit"
	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/internal/version"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultMaxRetries    = 4
	DefaultMinRetryWait  = 500 * time.Millisecond
	DefaultMaxRetryWait  = 20 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
	// DefaultResponseHeaderTimeout bounds each attempt's wait for response
	// headers. It is long because the correction container answers its
	// synchronous GET /pfc/{imageKey} only once the image is corrected.
	DefaultResponseHeaderTimeout = 5 * time.Minute
)

// Options configures a Client.
type Options struct {
	// BaseURL is the absolute http(s) URL every API path is relative to,
	// e.g. "https://api.example.test/v2"; its path prefix is kept and a
	// trailing slash is optional. It may not carry user info, a query or a
	// fragment. Required.
	BaseURL string
	// HTTPClient sends the requests. nil uses a pooled client of its own
	// (a clone of http.DefaultTransport, see pooledTransport). The client is shallow-copied: changes made to it after
	// New are not seen. Its CheckRedirect, if any, still runs, after the
	// per-request redirect rules of this package. Its Timeout applies to
	// each attempt, not to the whole call; use the context for that.
	HTTPClient *http.Client
	// UserAgent is appended to "pfc-go/<version>" (e.g. "myapp/1.2" gives
	// "pfc-go/0.1.0 myapp/1.2"); empty sends "pfc-go/<version>" alone.
	UserAgent string
	// AuthHeader and AuthValue are the credential header (e.g. "X-API-KEY")
	// and its value, sent only on API requests (Do, DoJSON) and only to the
	// BaseURL's origin, never across a redirect to another one. Empty means
	// no credential.
	AuthHeader, AuthValue string
	// AuthName names AuthValue in New's *apierr.ValidationError: the
	// client's own argument, e.g. "apiKey"; empty means "AuthValue".
	AuthName string
	// Secrets are more strings to remove from errors and logs, e.g. a
	// license key that appears as a path segment. AuthValue is always one.
	Secrets []string
	// MaxRetries is how many times a failed attempt is retried: 0 means
	// DefaultMaxRetries (4), a negative value means never.
	MaxRetries int
	// MinRetryWait and MaxRetryWait bound the exponential backoff between
	// attempts: 0 means DefaultMinRetryWait (500ms) and DefaultMaxRetryWait
	// (20s, or MinRetryWait when that is larger).
	MinRetryWait, MaxRetryWait time.Duration
	// MaxRetryAfter caps a server's Retry-After; 0 means
	// DefaultMaxRetryAfter (30s).
	MaxRetryAfter time.Duration
	// ResponseHeaderTimeout bounds how long each attempt (and each redirect
	// hop) waits for the response headers once the request is sent: 0 means
	// DefaultResponseHeaderTimeout (5 minutes), a negative value means no
	// bound. While the request body is sent it only ends an upload that
	// makes no progress for that long, so uploads of any length work; after
	// the headers it bounds each wait for the body's bytes in the same way
	// (the time a caller spends between reads does not count), so streamed
	// downloads of any length work too. The caller's http.Client and
	// Transport are not modified: the bound is this package's timer.
	ResponseHeaderTimeout time.Duration
	// RateBudget, if set, is waited on before every request sent to
	// BaseURL's origin and told every answer (see roundTripBudgeted); the
	// transports of one API client's replicas share it. nil: no budget.
	RateBudget *ratelimit.Budget
	// BudgetExternal makes DoExternal's requests to BaseURL's origin wait
	// for RateBudget too, for a service that serves its own files at URLs
	// it hands out; pre-signed URLs elsewhere never do.
	BudgetExternal bool
	// Logger receives a Debug record per attempt and per response, a Warn
	// record per retry and one when a call gives up with a retry due, with
	// the method and the redacted URL and error only (never headers or
	// bodies). nil disables logging.
	Logger *slog.Logger
	// Observer receives each attempt and retry wait; nil: none.
	Observer pfc.Observer
}

// Client is the HTTP layer shared by the SDK's API clients: retries,
// redirects, credentials, redaction and typed errors. It is safe for
// concurrent use.
type Client struct {
	base       *url.URL
	baseString string // base without a trailing slash
	hc         *http.Client
	rt         *noCloseIdle
	userAgent  string
	authHeader string
	// userAgentValues and authValues are the header values of userAgent
	// and authValue, made once and shared by every request (see
	// setHeader).
	userAgentValues, authValues []string
	authValue                   string
	// redactor removes the credential and Options.Secrets in every
	// spelling.
	redactor   *redact.Matcher
	maxRetries int
	minWait    time.Duration
	maxWait    time.Duration
	// maxRetryAfter caps Retry-After.
	maxRetryAfter time.Duration
	// headerTimeout bounds each attempt's wait for headers (0 = none),
	// enforced by watch (nil when there is no bound).
	headerTimeout time.Duration
	watch         *headerWatch
	logger        *slog.Logger
	obs           pfc.Observer
	// budget and budgetExternal are Options.RateBudget and BudgetExternal.
	budget         *ratelimit.Budget
	budgetExternal bool
	// jitter and now are swapped by tests for deterministic waits.
	jitter     func(max time.Duration) time.Duration
	now        func() time.Time
	userRedir  func(*http.Request, []*http.Request) error
	authOrigin origin
}

// New validates o and returns a Client. Invalid options are reported all at
// once as an *apierr.ValidationError naming the Options fields.
func New(o Options) (*Client, error) {
	var errs apierr.FieldErrors
	base, err := url.Parse(o.BaseURL)
	switch {
	case o.BaseURL == "":
		errs.Add("BaseURL", "is required")
	case err != nil:
		errs.Add("BaseURL", "is not a valid URL")
	case base.Scheme != "http" && base.Scheme != "https":
		errs.Add("BaseURL", "must be an absolute http or https URL")
	case base.Host == "" || base.Opaque != "":
		errs.Add("BaseURL", "must have a host")
	case base.User != nil:
		errs.Add("BaseURL", "must not carry user info; use AuthHeader/AuthValue")
	case base.RawQuery != "" || base.ForceQuery || base.Fragment != "":
		errs.Add("BaseURL", "must not have a query or a fragment")
	}
	if o.AuthHeader != "" && !validHeaderName(o.AuthHeader) {
		errs.Add("AuthHeader", "is not a valid header name")
	}
	if o.AuthValue != "" && o.AuthHeader == "" {
		errs.Add("AuthHeader", "is required when AuthValue is set")
	}
	if !validHeaderValue(o.AuthValue) {
		errs.Add(cmp.Or(o.AuthName, "AuthValue"), "contains control characters") // never echo the value
	}
	if !validHeaderValue(o.UserAgent) {
		errs.Add("UserAgent", "contains control characters")
	}
	c := &Client{
		userAgent:      version.UserAgent(),
		authHeader:     http.CanonicalHeaderKey(o.AuthHeader),
		authValue:      o.AuthValue,
		maxRetries:     o.MaxRetries,
		minWait:        o.MinRetryWait,
		maxWait:        o.MaxRetryWait,
		maxRetryAfter:  o.MaxRetryAfter,
		logger:         o.Logger,
		obs:            o.Observer,
		budget:         o.RateBudget,
		budgetExternal: o.BudgetExternal,
		jitter:         poll.Jitter,
		now:            time.Now,
	}
	if o.UserAgent != "" {
		c.userAgent += " " + o.UserAgent
	}
	c.userAgentValues = []string{c.userAgent}
	c.authValues = []string{c.authValue}
	if c.maxRetries == 0 {
		c.maxRetries = DefaultMaxRetries
	} else if c.maxRetries < 0 {
		c.maxRetries = 0
	}
	if c.minWait < 0 {
		errs.Add("MinRetryWait", "must not be negative")
	} else if c.minWait == 0 {
		c.minWait = DefaultMinRetryWait
	}
	if c.maxWait < 0 {
		errs.Add("MaxRetryWait", "must not be negative")
	} else if c.maxWait == 0 {
		c.maxWait = max(DefaultMaxRetryWait, c.minWait)
	}
	if c.maxWait >= 0 && c.minWait >= 0 && c.maxWait < c.minWait {
		errs.Add("MaxRetryWait", "must not be less than MinRetryWait (%s < %s)", c.maxWait, c.minWait)
	}
	if c.maxRetryAfter < 0 {
		errs.Add("MaxRetryAfter", "must not be negative")
	} else if c.maxRetryAfter == 0 {
		c.maxRetryAfter = DefaultMaxRetryAfter
	}
	switch {
	case o.ResponseHeaderTimeout == 0:
		c.headerTimeout = DefaultResponseHeaderTimeout
	case o.ResponseHeaderTimeout > 0:
		c.headerTimeout = o.ResponseHeaderTimeout
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if c.headerTimeout > 0 {
		c.watch = newHeaderWatch(c.headerTimeout)
	}

	base.Path = strings.TrimSuffix(base.Path, "/")
	base.RawPath = strings.TrimSuffix(base.RawPath, "/")
	c.base = base
	c.baseString = base.String()
	c.authOrigin = originOf(base)

	c.redactor = redact.New(append([]string{o.AuthValue}, o.Secrets...)...)

	var hc http.Client
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
	} else {
		hc = http.Client{Transport: pooledTransport()}
	}
	c.userRedir = hc.CheckRedirect
	c.rt = &noCloseIdle{rt: hc.Transport}
	hc.Transport = c.rt
	hc.CheckRedirect = c.checkRedirect
	c.hc = &hc
	return c, nil
}

// pooledTransport is the transport of a Client built without an
// HTTPClient: a clone of http.DefaultTransport (proxy from the environment,
// HTTP/2, the standard dial, TLS and idle timeouts), owned by the Client
// alone, that keeps up to GOMAXPROCS+1 idle connections per host instead
// of 2 so that concurrent calls (bulk runs) reuse their connections.
func pooledTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = runtime.GOMAXPROCS(0) + 1
	return t
}

// URL returns the absolute URL of an API path (relative to BaseURL, its
// segments already escaped, see PathJoin), without a query. It returns ""
// for a path that cannot be part of a URL (one holding '?' or '#').
func (c *Client) URL(path string) string {
	u, err := c.resolve(path)
	if err != nil {
		return ""
	}
	return u.String()
}

// StatusError returns resp, a status its caller does not handle (such as a
// redirect it chose not to follow), as an *apierr.APIError for one attempt
// of method. It reads a bounded part of the body and closes it. The URL is resp.Request's, redacted; an answer without a request (a
// custom RoundTripper may return one) gets none.
func (c *Client) StatusError(method string, resp *http.Response) *apierr.APIError {
	var u string
	if resp.Request != nil && resp.Request.URL != nil {
		u = quoteURL(c.Redact(resp.Request.URL.Redacted()))
	}
	return apierr.FromResponse(resp, method, u, 1, c.Redact)
}

// SameOrigin reports whether rawURL has the scheme, host and port of
// BaseURL, i.e. whether the credential may be sent to it.
func (c *Client) SameOrigin(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.IsAbs() && originOf(u) == c.authOrigin
}

// Redact returns s with the credential and every configured secret
// replaced by "REDACTED" in every spelling redact.Matcher knows: escaped
// for a URL, a JSON or JavaScript string, HTML or quoted-printable, in
// any case, in hex and base64 (the last three for secrets of 8 bytes or
// more).
func (c *Client) Redact(s string) string { return c.redactor.Redact(s) }

// Format prints the client as "transport.Client(<BaseURL>)" whatever the
// verb (%v, %+v, %#v, %d ...): it holds the credential and the secrets, and
// printing it by mistake, through fmt or a slog text handler, must not
// reveal them.
func (c *Client) Format(f fmt.State, _ rune) {
	if c == nil {
		_, _ = io.WriteString(f, "<nil>")
		return
	}
	_, _ = fmt.Fprintf(f, "transport.Client(%s)", c.baseString)
}

// CloseIdleConnections closes the idle keep-alive connections of the
// underlying transport.
func (c *Client) CloseIdleConnections() {
	if ci, ok := c.rt.transport().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// PathJoin escapes each segment with url.PathEscape (so "/" inside a segment
// becomes %2F) and joins them with "/": PathJoin("status", id).
func PathJoin(segs ...string) string {
	esc := make([]string, len(segs))
	for i, s := range segs {
		esc[i] = url.PathEscape(s)
	}
	return strings.Join(esc, "/")
}

// PathEscape is PathJoin under the name used where a single untrusted
// segment (a job id, a license key) is escaped.
func PathEscape(segments ...string) string { return PathJoin(segments...) }

// resolve builds the URL of an API path.
func (c *Client) resolve(path string) (*url.URL, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, fieldError("Path", "must not contain '?' or '#'; use Query or RawQuery")
	}
	rel := strings.TrimPrefix(path, "/")
	if c.base.RawPath == "" && plainPath(rel) {
		// What url.Parse would return, without parsing: the base needs no
		// escaping and neither does rel, so the joined path is both the
		// decoded and the escaped form (see TestResolveFastPath).
		u := *c.base
		if path != "" {
			u.Path += "/" + rel
		}
		return &u, nil
	}
	s := c.baseString
	if path != "" {
		s += "/" + rel
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fieldError("Path", "is not a valid escaped URL path")
	}
	if originOf(u) != c.authOrigin { // cannot happen with the checks above; belt and braces
		return nil, fieldError("Path", "leaves the API origin")
	}
	return u, nil
}

// plainPath reports whether p holds only unreserved characters and '/',
// which a URL path carries unescaped and url.Parse leaves as they are.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		switch b := p[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9',
			b == '-', b == '.', b == '_', b == '~', b == '/':
		default:
			return false
		}
	}
	return true
}

// encodeQuery encodes q sorted by key like url.Values.Encode, but with
// spaces as %20, which the hosted API documents ("School%20and%20Sports").
// url.QueryEscape turns a literal '+' into %2B, so every '+' left in the
// output stands for a space.
func encodeQuery(q url.Values) string {
	return strings.ReplaceAll(q.Encode(), "+", "%20")
}

func fieldError(field, msg string) error {
	var errs apierr.FieldErrors
	errs.Add(field, "%s", msg)
	return errs.Err()
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x80 || !isTokenChar(byte(r)) {
			return false
		}
	}
	return true
}

func isTokenChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// validHeaderValue rejects the control characters that would split or
// corrupt a header line.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// noCloseIdle hides CloseIdleConnections from retryablehttp, which calls it
// after every failed call and would otherwise drop the idle connections of
// every concurrent user of the shared transport. A nil rt means
// http.DefaultTransport, looked up per request (as http.Client does).
type noCloseIdle struct{ rt http.RoundTripper }

func (t *noCloseIdle) transport() http.RoundTripper {
	if t.rt == nil {
		return http.DefaultTransport
	}
	return t.rt
}

// RoundTrip sends r through the wrapped transport. A call sends through
// its own http.Client, whose transport is the call (callTransport).
func (t *noCloseIdle) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.transport().RoundTrip(r)
}
