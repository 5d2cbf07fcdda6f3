package replicas

import (
	"net"
	"net/url"
	"path"
	"strings"
)

// Key returns the form of a base URL that every spelling of one replica
// shares: scheme and host lower-cased, the scheme's default port dropped,
// the path cleaned ("/." and "a/../" removed) and without a trailing
// slash. "HTTP://A.TEST:80/." and "http://a.test" have one Key. A string
// that does not parse is its own Key, less a trailing slash.
func Key(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return strings.TrimSuffix(baseURL, "/")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := u.Hostname(), u.Port()
	host = strings.ToLower(host)
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	switch {
	case port != "":
		u.Host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"): // an IPv6 address
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	if p := u.EscapedPath(); p != "" {
		p = strings.TrimSuffix(path.Clean("/"+p), "/")
		if u.Path, err = url.PathUnescape(p); err != nil {
			return strings.TrimSuffix(baseURL, "/")
		}
		u.RawPath = p
	}
	return u.String()
}
