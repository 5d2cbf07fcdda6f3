package transport

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
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

// checkRedirect is the CheckRedirect of the client's http.Client. The call
// it belongs to travels in the request context (http.Client gives each hop
// the context of the first request).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	cl, _ := req.Context().Value(callKey{}).(*call)
	if cl != nil && cl.noFollow {
		return http.ErrUseLastResponse
	}
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
	// net/http copies the first request's headers to every hop, and strips
	// only Authorization/Cookie on a domain change: a custom credential
	// header like X-API-KEY would follow the redirect anywhere. The header
	// is kept only while every hop so far stayed on the API origin. This
	// runs after the caller's CheckRedirect so that it cannot be undone.
	if c.authHeader != "" && !c.allOnAuthOrigin(req, via) {
		req.Header.Del(c.authHeader)
	}
	if cl != nil && cl.c.logger != nil {
		cl.logRedirect(req, len(via))
	}
	return nil
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
