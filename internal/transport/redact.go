package transport

import (
	"encoding/base64"
	"encoding/hex"
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

// newReplacer returns a replacer for forms, the spellings of secrets that
// secretSpellings returned, longest first so that a secret containing
// another is removed whole; nil when there is nothing to redact.
func newReplacer(forms ...string) *strings.Replacer {
	seen := make(map[string]bool, len(forms))
	uniq := make([]string, 0, len(forms))
	for _, f := range forms {
		if f != "" && !seen[f] {
			seen[f] = true
			uniq = append(uniq, f)
		}
	}
	if len(uniq) == 0 {
		return nil
	}
	sort.SliceStable(uniq, func(i, j int) bool { return len(uniq[i]) > len(uniq[j]) })
	args := make([]string, 0, 2*len(uniq))
	for _, f := range uniq {
		args = append(args, f, Redacted)
	}
	return strings.NewReplacer(args...)
}

// secretSpellings returns every spelling of each secret (see secretForms
// and encodedForms), each once. The Client's are computed once, in New,
// and kept beside its replacer; a call with secrets of its own spells out
// only those, when its replacer is first needed (see call.redact).
func secretSpellings(secrets ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range append(secretForms(s), encodedForms(s)...) {
			if f != "" && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
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

// minEncodedSecretLen is the shortest secret whose base64 and hex
// spellings are redacted too: the encodings of shorter ones (8 hex digits
// for 4 bytes) are short enough to occur by chance in ids and hashes, and
// removing them would garble the text. Keys, licence keys and signatures
// are far longer.
const minEncodedSecretLen = 8

// encodedForms returns the spellings of a secret of minEncodedSecretLen
// bytes or more as a server may echo it encoded: hex (lower and upper
// case) and base64 in the standard and URL alphabets, padded and not, the
// base64 ones also as written in a query value, a path segment and a JSON
// string with "\/" for "/".
//
// A secret encoded inside a larger base64 string (a Basic credential
// "user:secret", a token holding it) is spelled according to its offset
// modulo 3, and its first and last characters mix its bits with those of
// its neighbours. For each of the three offsets the forms include the run
// of characters that encode the secret's bits alone, so that the whole run
// is redacted: at most two characters on each side, carrying a few bits of
// the secret's first and last bytes, remain.
func encodedForms(s string) []string {
	if len(s) < minEncodedSecretLen {
		return nil
	}
	b := []byte(s)
	h := hex.EncodeToString(b)
	forms := []string{h, strings.ToUpper(h)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		raw := enc.WithPadding(base64.NoPadding)
		var b64 []string
		b64 = append(b64, enc.EncodeToString(b), raw.EncodeToString(b))
		for lead := 0; lead < 3; lead++ {
			// Characters from the first that holds none of the lead
			// bytes' bits to the last that holds none of what follows.
			e := raw.EncodeToString(append(make([]byte, lead), b...))
			lo, hi := (8*lead+5)/6, (8*lead+8*len(b))/6
			b64 = append(b64, e[lo:hi])
		}
		for _, f := range b64 {
			forms = append(forms, f, url.QueryEscape(f), url.PathEscape(f), strings.ReplaceAll(f, "/", `\/`))
		}
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
