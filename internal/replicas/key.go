package replicas

import (
	"net"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Key returns the form of a base URL that every spelling of one replica
// shares: scheme and host lower-cased, a host name's trailing dot and an
// IP address's spelling normalised ("[0:0:0:0:0:0:0:1]" is "[::1]"), the
// port without leading zeros and without the scheme's default, the path's
// escapes of unreserved characters decoded ("%78" is "x"), the path
// cleaned ("/." and "a/../" removed) and without a trailing slash.
// "HTTP://A.TEST.:0080/." and "http://a.test" have one Key. A string that
// does not parse is its own Key, less a trailing slash.
func Key(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return strings.TrimSuffix(baseURL, "/")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := u.Hostname(), u.Port()
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	if n, err := strconv.Atoi(port); err == nil {
		port = strconv.Itoa(n)
	}
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
		p = strings.TrimSuffix(path.Clean("/"+unreserved(p)), "/")
		if u.Path, err = url.PathUnescape(p); err != nil {
			return strings.TrimSuffix(baseURL, "/")
		}
		u.RawPath = p
	}
	return u.String()
}

// unreserved decodes p's escapes of unreserved characters (RFC 3986
// 2.3: letters, digits, "-", ".", "_", "~"), which mean the character
// itself, and upper-cases the hex digits of the others.
func unreserved(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		n, err := strconv.ParseUint(p[i+1:i+3], 16, 8)
		if err != nil {
			b.WriteByte(p[i])
			continue
		}
		c := byte(n)
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString(strings.ToUpper(p[i : i+3]))
		}
		i += 2
	}
	return b.String()
}
