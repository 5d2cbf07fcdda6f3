package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"mime/quotedprintable"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// key has every character a URL encoder treats apart (+ = @ : / space), a
// JSON and an HTML one (< & "), and a non-ASCII one.
const key = `Lic-7f3A/9c2e+51b4=4d0e@9a7f:6b8c 1d2e<&"é`

// percent escapes every byte of s that keep does not keep, in upper-case
// hex (lower-case when lowerHex).
func percent(s string, keep func(byte) bool, lowerHex bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case keep(c):
			b.WriteByte(c)
		case lowerHex:
			fmt.Fprintf(&b, "%%%02x", c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0
}

// perRune spells every rune of s with f.
func perRune(s string, f func(r rune) string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(f(r))
	}
	return b.String()
}

// utf16Escapes spells r as \uXXXX escapes (format gives the digits' case).
func utf16Escapes(r rune, intro, format string) string {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		return intro + fmt.Sprintf(format, r1) + intro + fmt.Sprintf(format, r2)
	}
	return intro + fmt.Sprintf(format, r)
}

// wrapLines breaks s every n bytes with sep, as MIME wraps base64.
func wrapLines(s string, n int, sep string) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + sep)
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// spellings returns the ways servers and encoders write key, by name.
func spellings(t *testing.T) map[string]string {
	t.Helper()
	var qp bytes.Buffer
	w := quotedprintable.NewWriter(&qp)
	_, err := w.Write([]byte(strings.Repeat("x", 60) + key)) // wraps inside the key
	require.NoError(t, err)
	require.NoError(t, w.Close())
	qpKey := strings.TrimPrefix(qp.String(), strings.Repeat("x", 60))
	require.Contains(t, qpKey, "=\r\n")
	goJSON, err := json.Marshal(key)
	require.NoError(t, err)
	jsonInJSON, err := json.Marshal(string(goJSON[1 : len(goJSON)-1]))
	require.NoError(t, err)
	b := []byte(key)
	b64 := base64.StdEncoding.EncodeToString(b)
	return map[string]string{
		"as is":                   key,
		"mixed case":              `lIC-7F3a/9C2E+51B4=4D0E@9A7F:6B8C 1D2E<&"É`,
		"Go QueryEscape":          url.QueryEscape(key),
		"Go PathEscape":           url.PathEscape(key),
		"Python quote":            percent(key, func(c byte) bool { return unreserved(c) || c == '/' }, false),
		"Python quote_plus":       strings.ReplaceAll(percent(key, func(c byte) bool { return unreserved(c) || c == ' ' }, false), " ", "+"),
		"JavaScript encodeURI":    percent(key, func(c byte) bool { return unreserved(c) || strings.IndexByte(";,/?:@&=+$#!*'()", c) >= 0 }, false),
		"encodeURIComponent":      percent(key, func(c byte) bool { return unreserved(c) || strings.IndexByte("!*'()", c) >= 0 }, false),
		"every byte escaped":      percent(key, func(byte) bool { return false }, true),
		"JavaScript escape()":     perRune(key, func(r rune) string { return fmt.Sprintf("%%u%04X", r) }),
		"Go JSON":                 string(goJSON[1 : len(goJSON)-1]),
		"every rune \\u-escaped":  perRune(key, func(r rune) string { return utf16Escapes(r, `\u`, "%04x") }),
		"\\u with upper-case hex": perRune(key, func(r rune) string { return utf16Escapes(r, `\u`, "%04X") }),
		"JSON upper-cased whole":  strings.ToUpper(perRune(key, func(r rune) string { return utf16Escapes(r, `\u`, "%04x") })),
		"\\x and \\u{}": perRune(key, func(r rune) string {
			return map[bool]string{true: fmt.Sprintf(`\x%02x`, r), false: fmt.Sprintf(`\u{%x}`, r)}[r < 0x80]
		}),
		"HTML decimal":             perRune(key, func(r rune) string { return fmt.Sprintf("&#%d;", r) }),
		"HTML hex":                 perRune(key, func(r rune) string { return fmt.Sprintf("&#x%X;", r) }),
		"HTML named":               `Lic-7f3A&sol;9c2e&plus;51b4&equals;4d0e&commat;9a7f&colon;6b8c 1d2e&lt;&amp;&quot;&#233;`,
		"quoted-printable wrapped": qpKey,
		"hex":                      hex.EncodeToString(b),
		"hex mixed case, wrapped":  wrapLines(strings.ToUpper(hex.EncodeToString(b[:9]))+hex.EncodeToString(b[9:]), 16, "\r\n"),
		"base64":                   b64,
		"base64 URL, raw":          base64.RawURLEncoding.EncodeToString(b),
		"base64 MIME-wrapped":      wrapLines(b64, 12, "\r\n"),
		"base64 in a folded line":  wrapLines(b64, 20, "\r\n "),
		"base64 query-escaped":     url.QueryEscape(b64),
		"base64 wrapped in JSON":   wrapLines(b64, 12, `\r\n`),
		"quoted-printable in JSON": strings.ReplaceAll(qpKey, "\r\n", `\r\n`),
		"percent-escaped twice":    url.QueryEscape(url.QueryEscape(key)),
		"JSON inside JSON":         string(jsonInJSON[1 : len(jsonInJSON)-1]),
		"HTML escaped twice":       html.EscapeString(html.EscapeString(key)),
	}
}

// TestEverySpellingIsRedacted: each spelling of the key, whole, becomes
// one REDACTED, and the text around it stays.
func TestEverySpellingIsRedacted(t *testing.T) {
	t.Parallel()
	m := New(key)
	for name, sp := range spellings(t) {
		assert.Equal(t, "<< "+Redacted+" >>", m.Redact("<< "+sp+" >>"), "%s: %q", name, sp)
		assert.Equal(t, Redacted, m.Redact(sp), name)
	}
}

// TestTextWithoutSecretsIsUnchanged: text holding escapes, entities and
// base64 but no secret comes back as it was, without a copy.
func TestTextWithoutSecretsIsUnchanged(t *testing.T) {
	t.Parallel()
	m := New(key, "another-secret-0123")
	for _, s := range []string{
		"", "a", "%", "&", "\\", "=", "+", "%zz &#; &#x; &unknown; \\q =\r\n = \r\n",
		`{"error":"bad request: see https:\/\/docs.example.com\/x?a=1&amp;b=2","code":"\u0041"}`,
		"Lic-7f3A/9c2e+51b4=4d0e@9a7f:6b8c 1d2e<&", // the key but its last characters
		strings.Repeat("%25", 1000), strings.Repeat("\\u00", 1000),
		base64.StdEncoding.EncodeToString([]byte("Lic-7f3A/9c2e+51b4=4d0e@9a7f")),
	} {
		got := m.Redact(s)
		assert.Equal(t, s, got)
		if s != "" {
			assert.Equal(t, unsafe.StringData(s), unsafe.StringData(got), "a copy was made of %.40q", s)
		}
	}
}

// TestShortSecretsMatchOnlyAsWritten: a secret under MinFoldLen bytes is
// redacted as written or escaped, but not in another case, nor in hex or
// base64, which would match words, ids and hashes.
func TestShortSecretsMatchOnlyAsWritten(t *testing.T) {
	t.Parallel()
	m := New("Short")
	assert.Equal(t, "a "+Redacted+" "+Redacted+" b", m.Redact("a Short %53hort b"))
	for _, s := range []string{"SHORT short", "53686f7274", "U2hvcnQ="} {
		assert.Equal(t, s, m.Redact(s))
	}
}

// TestLiteralEscapeCharacters: a secret holding what looks like an escape
// ("%41", "&amp;", "\u0041", "=3D", "+") is found as written and escaped.
func TestLiteralEscapeCharacters(t *testing.T) {
	t.Parallel()
	const s = `k%41&amp;\u0041=3D+x`
	m := New(s)
	for _, sp := range []string{s, url.QueryEscape(s), url.PathEscape(s), strings.ToUpper(s), `k%2541&amp;amp;\\u0041=3D+x`} {
		assert.Equal(t, "a "+Redacted+" b", m.Redact("a "+sp+" b"), sp)
	}
	assert.Equal(t, "k%41&amp;\\u0041=3D x", m.Redact("k%41&amp;\\u0041=3D x"), "'+' spells a space, not the reverse")
}

// TestAdjacentAndRepeated: secrets next to each other, repeated, or one
// inside another are each removed whole.
func TestAdjacentAndRepeated(t *testing.T) {
	t.Parallel()
	m := New("secret-one-123", "secret-one-123-and-more")
	assert.Equal(t, Redacted+Redacted+" "+Redacted, m.Redact("secret-one-123SECRET-ONE-123 secret-one-123-and-more"))
}

// TestWith: a matcher extended with a call's secrets redacts both; the
// original is left as it was.
func TestWith(t *testing.T) {
	t.Parallel()
	var none *Matcher
	assert.Equal(t, "x", none.Redact("x"))
	assert.Nil(t, New(""))
	m := New("client-secret-1")
	assert.Same(t, m, m.With(""))
	c := m.With("call-secret-22")
	assert.Equal(t, Redacted+" "+Redacted, c.Redact("client-secret-1 call-secret-22"))
	assert.Equal(t, Redacted+" call-secret-22", m.Redact("client-secret-1 call-secret-22"))
}

// TestBase64InsideLargerBase64: inside a larger base64 string, at each
// offset modulo 3, every character that encodes the secret's bits alone
// is removed; at most two on each side remain.
func TestBase64InsideLargerBase64(t *testing.T) {
	t.Parallel()
	const s = "lk?>~0123456789abcdefghij~>?"
	m := New(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for lead := 0; lead < 6; lead++ {
			whole := enc.EncodeToString([]byte(strings.Repeat("u", lead) + s + ":tail?>"))
			lo, hi := (8*lead+5)/6, (8*lead+8*len(s))/6
			before, after, ok := strings.Cut(m.Redact(whole), Redacted)
			require.True(t, ok, "lead %d", lead)
			assert.True(t, strings.HasPrefix(whole[:lo], before), "lead %d", lead)
			assert.True(t, strings.HasSuffix(whole[hi:], after), "lead %d", lead)
		}
	}
}

// TestAdversarialTextIsBounded: text built to make the matcher try many
// readings at every position is still redacted right.
func TestAdversarialTextIsBounded(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("%", 12)
	m := New(s, strings.Repeat("a", 40)+"b")
	text := strings.Repeat("%25", 3000) + strings.Repeat("a", 3000)
	got := m.Redact(text)
	// Every 12 of the 3000 escaped '%'s spell s: one span.
	assert.True(t, got == Redacted+strings.Repeat("a", 3000), "%.200q", got)
}

func TestWebhookURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://hooks.example.com/services/T0/B0/XXXXXXXXXXXXXXXX": "https://hooks.example.com/" + Redacted,
		"https://user:pw@h.example/hook?token=abc&x#frag":           "https://h.example/hook?token=" + Redacted + "&" + Redacted,
		"https://h.example/a%2Fb-0123456789":                        "https://h.example/" + Redacted,
		"https://h.example":                                         "https://h.example",
		"http://[::1":                                               "(invalid URL)",
	} {
		assert.Equal(t, want, WebhookURL(in), in)
	}
	assert.True(t, PathIsSecret("/webhook"))
	assert.False(t, PathIsSecret("/hook"))
}

func TestSignedURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://s.example/o?X-Amz-Signature=abc&X-Amz-Expires=60#f": "https://s.example/o?X-Amz-Signature=" + Redacted + "&X-Amz-Expires=" + Redacted,
		"https://u:pw@s.example/o?tok":                               "https://u:xxxxx@s.example/o?" + Redacted,
		"https://s.example/o":                                        "https://s.example/o",
		"http://[::1":                                                Redacted,
		"":                                                           "",
	} {
		assert.Equal(t, want, SignedURL(in), in)
	}
}

// TestEscapedTwiceAcrossSchemes: an escape escaped again by another
// encoder (HTML inside Go's JSON or a URL, JSON inside a URL, a URL
// inside HTML or JSON, quoted-printable inside a URL) is read, the
// secret's first character included.
func TestEscapedTwiceAcrossSchemes(t *testing.T) {
	t.Parallel()
	const s = `Lic-7f3A9c2e<51b4&4d0e"9a7f`
	m := New(s)
	for name, text := range map[string]string{
		"HTML in Go's JSON": `Lic-7f3A9c2e\u0026lt;51b4\u0026amp;4d0e\u0026quot;9a7f`,
		"HTML in a URL":     `Lic-7f3A9c2e%26lt%3B51b4%26amp%3B4d0e%26quot%3B9a7f`,
		"URL in HTML":       `Lic-7f3A9c2e&#37;3C51b4&percnt;264d0e&#x25;229a7f`,
		"URL in JSON":       `Lic-7f3A9c2e\u00253C51b4\u0025264d0e\u0025229a7f`,
		"JSON in a URL":     `%5Cu004Cic-7f3A9c2e%5Cu003c51b4%5Cu00264d0e%5C%229a7f`,
		"QP in a URL":       `%3D4Cic-7f3A9c2e%3D3C51b4%3D264d0e%3D229a7f`,
		"JSON in HTML":      `&bsol;u004Cic-7f3A9c2e&#92;u003c51b4&#x5C;u00264d0e&#92;&quot;9a7f`,
	} {
		assert.Equal(t, "<"+Redacted+">", m.Redact("<"+text+">"), name)
	}
}

// TestOverlappingSecrets: where one secret's spelling starts inside
// another's and ends past it, no part of either survives.
func TestOverlappingSecrets(t *testing.T) {
	t.Parallel()
	m := New("Lic-AAAAAAAAAAAA-bbbbbbbb", "bbbbbbbb-CCCCCCCCCCCCCCCC", "CCCCCCCC-dddddddd")
	assert.Equal(t, "("+Redacted+")", m.Redact("(Lic-AAAAAAAAAAAA-bbbbbbbb-CCCCCCCCCCCCCCCC-dddddddd)"))
	assert.Equal(t, "("+Redacted+")", m.Redact("(LIC-AAAAAAAAAAAA-BBBBBBBB-CCCCCCCCCCCCCCCC%2Ddddddddd)"))
	assert.Equal(t, "x "+Redacted+" y", New("abcdefgh12", "abcdefgh1234567").Redact("x abcdefgh1234567 y"))
}
