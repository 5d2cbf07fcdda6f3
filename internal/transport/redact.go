package transport

import (
	"net/url"
	"sort"
	"strings"
)

// Redacted replaces every secret in errors and logs.
const Redacted = "REDACTED"

// minSignedValueLen is the shortest query value of an external (pre-signed)
// URL that is also removed from response bodies: shorter values (an expiry
// in seconds, an algorithm name) are not secrets and would only garble the
// text. Values of any length are removed from the URL itself.
const minSignedValueLen = 8

// newReplacer returns a replacer for secrets and their URL-escaped forms,
// longest first so that a secret containing another is removed whole; nil
// when there is nothing to redact.
func newReplacer(secrets ...string) *strings.Replacer {
	seen := map[string]bool{}
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		q := url.QueryEscape(s)
		for _, f := range []string{s, url.PathEscape(s), q, strings.ReplaceAll(q, "+", "%20")} {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	args := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		args = append(args, f, Redacted)
	}
	return strings.NewReplacer(args...)
}

func replace(r *strings.Replacer, s string) string {
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// redactQueryValues returns u as text with every query value replaced by
// REDACTED (pre-signed URLs carry their signature, credential and token in
// the query), the password hidden and the fragment dropped.
func redactQueryValues(u *url.URL) string {
	cp := *u
	cp.Fragment, cp.RawFragment = "", ""
	if cp.RawQuery != "" {
		parts := strings.Split(cp.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + Redacted
			}
		}
		cp.RawQuery = strings.Join(parts, "&")
	}
	return cp.Redacted()
}

// URLSecrets returns what in rawURL should be treated as secret when the URL
// itself travels in a request (a webhook URL sent as a query value): its
// password and its query values of 8 characters or more, decoded and as
// written. It returns nil for a URL that does not parse.
func URLSecrets(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	out := queryValues(u)
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	return out
}

// queryValues returns the query values of u long enough to be secrets, both
// decoded and as sent.
func queryValues(u *url.URL) []string {
	var out []string
	for _, p := range strings.Split(u.RawQuery, "&") {
		_, v, ok := strings.Cut(p, "=")
		if !ok || len(v) < minSignedValueLen {
			continue
		}
		out = append(out, v)
		if dec, err := url.QueryUnescape(v); err == nil && dec != v {
			out = append(out, dec)
		}
	}
	return out
}
