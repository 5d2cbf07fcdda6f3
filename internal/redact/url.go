package redact

import (
	"net/url"
	"strings"
)

// MinQueryValueLen is the shortest query value of a URL that is a secret
// of its own (removed from any text, see QueryValues): shorter values (an
// expiry in seconds, an algorithm name) are not secrets and would only
// garble the text. Values of any length are removed from the URL itself
// (see RedactQuery).
const MinQueryValueLen = 8

// minPathLen is the shortest URL path that may carry a token (see
// PathIsSecret).
const minPathLen = 8

// minPathSegmentLen is the shortest path segment of a webhook URL removed
// from errors and logs on its own: tokens are long, while shorter segments
// ("services", "hooks", "catch") are words a message may well contain.
const minPathSegmentLen = 16

// PathIsSecret reports whether a webhook URL's path (decoded) is long
// enough to carry a token: many webhook URLs carry it in the path
// (/services/T0/B0/<token>, /webhooks/<id>/<token>).
func PathIsSecret(path string) bool { return len(path) >= minPathLen }

// URLSecrets returns what in rawURL should be treated as secret when the URL
// itself travels in a request (a webhook URL sent as a query value): the
// whole URL, its path when PathIsSecret and its path segments of 16
// characters or more, its password and its query values of
// MinQueryValueLen characters or more, decoded and as written. The whole
// URL is returned even when it does not parse.
func URLSecrets(rawURL string) []string {
	if rawURL == "" {
		return nil
	}
	out := []string{rawURL}
	u, err := url.Parse(rawURL)
	if err != nil {
		return out
	}
	out = append(out, QueryValues(u)...)
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	if PathIsSecret(u.Path) {
		out = append(out, u.Path)
		if u.RawPath != "" {
			out = append(out, u.RawPath)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if len(seg) >= minPathSegmentLen {
				out = append(out, seg)
			}
		}
	}
	return out
}

// QueryValues returns the query values of u (and its bare tokens without
// "=") of MinQueryValueLen bytes or more, both decoded and as sent.
func QueryValues(u *url.URL) []string {
	var out []string
	for _, p := range strings.Split(u.RawQuery, "&") {
		_, v, ok := strings.Cut(p, "=")
		if !ok {
			v = p // a bare token ("?<signature>") is a value too
		}
		if len(v) < MinQueryValueLen {
			continue
		}
		out = append(out, v)
		if dec, err := url.QueryUnescape(v); err == nil && dec != v {
			out = append(out, dec)
		}
	}
	return out
}

// RedactQuery returns the raw query q with every value, and every bare
// token without "=", replaced by Redacted (pre-signed URLs carry their
// signature, credential and token in the query); the keys stay.
func RedactQuery(q string) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + Redacted
		} else if p != "" {
			parts[i] = Redacted // a bare token ("?<signature>")
		}
	}
	return strings.Join(parts, "&")
}

// QueryRedacted returns u as text with every query value, and every bare
// query token, Redacted (see RedactQuery), its password hidden and its
// fragment dropped: a pre-signed URL as errors, logs and printed values
// show it.
func QueryRedacted(u *url.URL) string {
	cp := *u
	cp.Fragment, cp.RawFragment = "", ""
	cp.RawQuery = RedactQuery(cp.RawQuery)
	return cp.Redacted()
}

// SignedURL is QueryRedacted of rawURL; Redacted whole when it does not
// parse, and "" for "".
func SignedURL(rawURL string) string {
	if rawURL == "" {
		return ""
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Redacted
	}
	return QueryRedacted(u)
}

// WebhookURL returns a webhook URL as a log line or an error may show it:
// its scheme and host; its path, or "/REDACTED" where PathIsSecret; its
// query with every value redacted (RedactQuery); no user info and no
// fragment. A URL that does not parse is "(invalid URL)".
func WebhookURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(invalid URL)"
	}
	out := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	if PathIsSecret(u.Path) {
		out.Path, out.RawPath = "/"+Redacted, ""
	}
	out.RawQuery = RedactQuery(u.RawQuery)
	return out.String()
}
