package transport

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// maxRedirects is net/http's default limit, kept when the caller's client
// has no CheckRedirect of its own.
const maxRedirects = 10

// origin is the scheme, host and port of a URL, with default ports made
// explicit, so that "https://h" and "https://h:443" compare equal.
type origin struct{ scheme, host, port string }

func originOf(u *url.URL) origin {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return origin{scheme: scheme, host: strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port: port}
}

func (o origin) String() string { return o.scheme + "://" + net.JoinHostPort(o.host, o.port) }

// redirectError marks an error returned by the redirect policy (too many
// redirects, or the caller's CheckRedirect refusing): final, not retried.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// errTooManyRedirects keeps net/http's wording.
var errTooManyRedirects = errors.New("stopped after 10 redirects")

// checkRedirect is the CheckRedirect of the client's http.Client, for a
// request sent outside a call (the call's own http.Client asks the call).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	return c.redirectPolicy(nil, req, via)
}

// checkRedirect is the CheckRedirect of the call's http.Client (hc).
func (cl *call) checkRedirect(req *http.Request, via []*http.Request) error {
	return cl.c.redirectPolicy(cl, req, via)
}

// redirectPolicy decides on a redirect hop of cl (nil: of no call).
func (c *Client) redirectPolicy(cl *call, req *http.Request, via []*http.Request) error {
	if cl != nil && cl.noFollow {
		return http.ErrUseLastResponse
	}
	// Strip before the caller's CheckRedirect too, so that a policy that
	// logs the hop's headers does not log the credential.
	c.stripHop(cl, req, via)
	if c.userRedir != nil {
		if err := c.userRedir(req, via); err != nil {
			if errors.Is(err, http.ErrUseLastResponse) {
				return err
			}
			return &redirectError{err: err}
		}
	} else if len(via) >= maxRedirects {
		return &redirectError{err: errTooManyRedirects}
	}
	// Again after the caller's CheckRedirect, so that it cannot undo it.
	c.stripHop(cl, req, via)
	if cl != nil {
		cl.learnHopSecrets(req.URL)
		if cl.c.logger != nil {
			cl.logRedirect(req, len(via))
		}
	}
	return nil
}

// learnHopSecrets makes a redirect target outside the API origin (a
// pre-signed download URL, typically) as secret as a URL given to
// DoExternal: its long query values are added to the call's redactor, so
// that an object store's answer echoing its signature is redacted too.
func (cl *call) learnHopSecrets(u *url.URL) {
	if !cl.external && originOf(u) == cl.c.authOrigin {
		return
	}
	values := redact.QueryValues(u)
	if len(values) == 0 {
		return
	}
	// The call's URL stays redacted as it was before this hop.
	cl.url()
	// Clip: the slice may share its array with the caller's
	// Request.Secrets. The redactor is rebuilt on its next use.
	cl.secrets, cl.redactorStale = append(slices.Clip(cl.secrets), values...), true
}

// delHeader removes every spelling of name from h. Header.Del only removes
// the canonical key, but a map assignment can add another spelling, which
// net/http sends as is (and copies to every redirect hop).
func delHeader(h http.Header, name string) {
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
}

// stripHop removes from a redirect hop of cl (nil: of no call) what must
// not reach its host.
func (c *Client) stripHop(cl *call, req *http.Request, via []*http.Request) {
	// net/http copies the first request's headers to every hop, and strips
	// only Authorization/Cookie on a domain change: a custom credential
	// header like X-API-KEY would follow the redirect anywhere. The header
	// is kept only while every hop so far stayed on the API origin.
	if c.authHeader != "" && !c.allOnAuthOrigin(req, via) {
		delHeader(req.Header, c.authHeader)
	}
	// An observer's trace context, whatever its propagator's headers, is
	// for the service alone, never for a pre-signed storage URL a
	// redirect leads to.
	if c.obs != nil && !c.allOnAuthOrigin(req, via) {
		for _, h := range traceHeaders {
			delHeader(req.Header, h)
		}
		if cl != nil {
			for _, h := range cl.obsHeaders {
				delHeader(req.Header, h)
			}
		}
	}
	// net/http also sets Referer to the previous hop's full URL, path and
	// query included, so a license key in the path, the API query or a
	// pre-signed signature would reach the next host. The SDK has no use
	// for a Referer: only one the caller set on the first request stays.
	if len(via) > 0 && via[0].Header.Get("Referer") == "" {
		req.Header.Del("Referer")
	}
}

func (c *Client) allOnAuthOrigin(req *http.Request, via []*http.Request) bool {
	if originOf(req.URL) != c.authOrigin {
		return false
	}
	for _, v := range via {
		if originOf(v.URL) != c.authOrigin {
			return false
		}
	}
	return true
}
