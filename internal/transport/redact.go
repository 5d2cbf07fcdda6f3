package transport

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted replaces every secret in errors and logs.
const Redacted = "REDACTED"

// minSignedValueLen is the shortest query value of an external (pre-signed)
// URL that is also removed from response bodies: shorter values (an expiry
// in seconds, an algorithm name) are not secrets and would only garble the
// text. Values of any length are removed from the URL itself.
const minSignedValueLen = 8

// newReplacer returns a replacer for secrets and their URL-escaped and
// JSON-escaped forms (see secretForms), longest first so that a secret
// containing another is removed whole; nil when there is nothing to redact.
func newReplacer(secrets ...string) *strings.Replacer {
	seen := map[string]bool{}
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range secretForms(s) {
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

// secretForms returns every spelling of a secret that can reach an error or
// a log: as is; URL-escaped as a path segment and as a query value (spaces
// as + and as %20); and as the contents of a JSON string the way common
// encoders write it (Go's, with and without HTML escaping; Python's
// ensure_ascii, \uXXXX for every non-ASCII rune; "\/" for "/", and PHP's
// default, both of the last two), since an
// error body that echoes a key is kept in APIError.Body and Message.
func secretForms(s string) []string {
	q := url.QueryEscape(s)
	forms := []string{s, url.PathEscape(s), q, strings.ReplaceAll(q, "+", "%20")}
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) != nil {
			continue
		}
		j := strings.TrimSuffix(b.String(), "\n")
		j = j[1 : len(j)-1] // the quotes
		a := asciiJSON(j)
		forms = append(forms, j, a, strings.ReplaceAll(j, "/", `\/`), strings.ReplaceAll(a, "/", `\/`))
	}
	return forms
}

// asciiJSON escapes every non-ASCII rune of a JSON string's contents as
// \uXXXX (UTF-16, lower-case hex), as Python's json.dumps does by default.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

func replace(r *strings.Replacer, s string) string {
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// redactQueryValues returns u as text with every query value, and every
// bare query token without "=", replaced by REDACTED (pre-signed URLs
// carry their signature, credential and token in the query), the password
// hidden and the fragment dropped.
func redactQueryValues(u *url.URL) string {
	cp := *u
	cp.Fragment, cp.RawFragment = "", ""
	if cp.RawQuery != "" {
		parts := strings.Split(cp.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + Redacted
			} else if p != "" {
				parts[i] = Redacted // a bare token ("?<signature>")
			}
		}
		cp.RawQuery = strings.Join(parts, "&")
	}
	return cp.Redacted()
}

// URLSecrets returns what in rawURL should be treated as secret when the URL
// itself travels in a request (a webhook URL sent as a query value). Many
// webhook URLs carry their token in the path (/services/T0/B0/<token>,
// /webhooks/<id>/<token>), so it returns the whole URL, its path and its
// path segments of 16 characters or more, as well as its password and its
// query values of 8 characters or more, decoded and as written. The whole
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
	out = append(out, queryValues(u)...)
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	if len(u.Path) >= minSignedValueLen {
		out = append(out, u.Path)
		if u.RawPath != "" {
			out = append(out, u.RawPath)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if len(seg) >= minPathSecretLen {
				out = append(out, seg)
			}
		}
	}
	return out
}

// minPathSecretLen is the shortest path segment of a webhook URL removed
// from errors and logs on its own: tokens are long, while shorter segments
// ("services", "hooks", "catch") are words a message may well contain.
const minPathSecretLen = 16

// queryValues returns the query values of u (and its bare tokens without
// "=") long enough to be secrets, both decoded and as sent.
func queryValues(u *url.URL) []string {
	var out []string
	for _, p := range strings.Split(u.RawQuery, "&") {
		_, v, ok := strings.Cut(p, "=")
		if !ok {
			v = p // a bare token ("?<signature>") is a value too
		}
		if len(v) < minSignedValueLen {
			continue
		}
		out = append(out, v)
		if dec, err := url.QueryUnescape(v); err == nil && dec != v {
			out = append(out, dec)
		}
	}
	return out
}
