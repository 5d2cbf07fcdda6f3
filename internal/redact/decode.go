package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeEscape decodes the escape at s[j] (s[j] is one of escapeLeads):
// the character it stands for and the escape's length, or ok false.
func decodeEscape(s string, j int) (r rune, w int, ok bool) {
	switch s[j] {
	case '%':
		if j+1 < len(s) && (s[j+1] == 'u' || s[j+1] == 'U') {
			// JavaScript's escape(): %uXXXX, surrogate pairs as two.
			return utf16Escape(s, j, "%u")
		}
		return byteEscapes(s, j, "%")
	case '=':
		// Quoted-printable.
		return byteEscapes(s, j, "=")
	case '+':
		return ' ', 1, true
	case '\\':
		return backslashEscape(s, j)
	case '&':
		return charRef(s, j)
	}
	return 0, 0, false
}

// decodeNested decodes the escape at s[j] read as escaped twice: an
// escape whose characters were escaped once more, in the same scheme or
// another one. The escape at s[j] must stand for the first character of
// an escape (one of escapeLeads); what follows is read a character at a
// time, each written as is or escaped once, and the escape those
// characters spell is decoded: "%25XX" and "%2B" (a URL inside a URL's
// query), `\\u003c` (JSON inside JSON), "&amp;lt;" (HTML escaped twice),
// `\u0026lt;` (HTML inside Go's JSON), "%26lt%3B" (HTML inside a URL),
// "%5Cu003c" (JSON inside a URL), "&#37;3C" (a URL inside HTML) ...
func decodeNested(s string, j int) (rune, int, bool) {
	c, w, ok := decodeEscape(s, j)
	if !ok || c >= utf8.RuneSelf || !isLead[c] || c == '\r' || c == '\n' {
		return 0, 0, false
	}
	var in nested
	in.s, in.buf[0], in.ends[0], in.n = s, byte(c), j+w, 1
	// Read no more characters than the escape they start may hold:
	// most text with escapes in it has escaped leads that start none.
	need := 0
	switch c {
	case '+':
		need = 1
	case '%', '=':
		switch b := in.at(1); {
		case c == '%' && (b == 'u' || b == 'U'):
			need = 12 // %uD83D%uDE00
		case unhex[b] < 16:
			need = 3
			if hb, ok := in.hexByte(); ok && hb >= utf8.RuneSelf {
				need = 3 * max(seqLen(hb), 1)
			}
		}
	case '\\':
		switch b := in.at(1); {
		case b == 'u' || b == 'U':
			need = 12 // \uD83D\uDE00, \U0001F600, \u{1F600}
		case b == 'x' || b == 'X':
			need = 16 // \xf0\x9f\x98\x80
		case shortEscapes[b] >= 0:
			need = 2
		}
	case '&':
		if b := in.at(1); b == '#' || 'a' <= lower[b] && lower[b] <= 'z' {
			need = 2 + maxEntityName // &#x10FFFF;, &vertline;
		}
	}
	if need == 0 {
		return 0, 0, false
	}
	in.at(need - 1)
	r, iw, ok := decodeEscape(string(in.buf[:in.n]), 0)
	if !ok || iw < 1 {
		return 0, 0, false
	}
	return r, in.ends[iw-1] - j, true
}

// nested reads the characters an escape escaped once more spells: each
// written as is or escaped once (see decodeNested).
type nested struct {
	s    string
	buf  [16]byte // the characters read
	ends [16]int  // where each ends in s
	n    int      // how many were read
}

// at returns the i-th character, reading up to it; 0 past the end of the
// text or at a character that is not ASCII.
func (in *nested) at(i int) byte {
	for in.n <= i && in.n < len(in.buf) {
		p := in.ends[in.n-1]
		if p >= len(in.s) {
			return 0
		}
		b := in.s[p]
		switch {
		case isLead[b]:
			if d, dw, ok := decodeEscape(in.s, p); ok && d < utf8.RuneSelf {
				b, p = byte(d), p+dw
			} else {
				p++
			}
		case b < utf8.RuneSelf:
			p++
		default:
			return 0
		}
		in.buf[in.n], in.ends[in.n] = b, p
		in.n++
	}
	if i >= in.n {
		return 0
	}
	return in.buf[i]
}

// hexByte reads the byte of the two hex digits after the first character.
func (in *nested) hexByte() (byte, bool) {
	hi, lo := unhex[in.at(1)], unhex[in.at(2)]
	if hi > 15 || lo > 15 {
		return 0, false
	}
	return hi<<4 | lo, true
}

// byteEscapes decodes escapes of one byte each, intro and two hex digits
// ("%C3%A9", "=C3=A9", `\xc3\xa9`), at s[j]: one byte, or the rune of
// the UTF-8 sequence it starts with the escapes that follow. A byte that
// is not ASCII nor part of such a rune decodes as a rawByte.
func byteEscapes(s string, j int, intro string) (rune, int, bool) {
	stride := len(intro) + 2
	b, ok := hexByte(s, j+len(intro))
	if !ok {
		return 0, 0, false
	}
	if b < utf8.RuneSelf {
		return rune(b), stride, true
	}
	var buf [utf8.UTFMax]byte
	buf[0] = b
	n := seqLen(b)
	for i := 1; i < n; i++ {
		at := j + stride*i
		if at+len(intro) > len(s) || !strings.EqualFold(s[at:at+len(intro)], intro) {
			n = 0
			break
		}
		c, ok := hexByte(s, at+len(intro))
		if !ok {
			n = 0
			break
		}
		buf[i] = c
	}
	if n > 1 {
		if r, size := utf8.DecodeRune(buf[:n]); size == n && r != utf8.RuneError {
			return r, stride * n, true
		}
	}
	return rawByte + rune(b), stride, true
}

// seqLen returns the length of the UTF-8 sequence that b starts (0 when
// b cannot start one).
func seqLen(b byte) int {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 2
	case b >= 0xE0 && b <= 0xEF:
		return 3
	case b >= 0xF0 && b <= 0xF4:
		return 4
	}
	return 0
}

// backslashEscape decodes a JSON, JavaScript or Python string escape.
func backslashEscape(s string, j int) (rune, int, bool) {
	if j+1 >= len(s) {
		return 0, 0, false
	}
	switch c := s[j+1]; c {
	case 'u', 'U':
		if j+2 < len(s) && s[j+2] == '{' {
			// JavaScript's \u{1F600}.
			end := strings.IndexByte(s[j+3:min(len(s), j+11)], '}')
			if end < 1 {
				return 0, 0, false
			}
			v, ok := hexValue(s[j+3 : j+3+end])
			if !ok || v > utf8.MaxRune {
				return 0, 0, false
			}
			return rune(v), end + 4, true
		}
		if c == 'U' && j+10 <= len(s) {
			// Python's \UXXXXXXXX.
			if v, ok := hexValue(s[j+2 : j+10]); ok && v <= utf8.MaxRune {
				return rune(v), 10, true
			}
		}
		return utf16Escape(s, j, `\u`)
	case 'x', 'X':
		b, ok := hexByte(s, j+2)
		if !ok {
			return 0, 0, false
		}
		if b >= 0xC2 {
			// Bytes written one escape each (b'\xc3\xa9'): their rune
			// when they are UTF-8.
			if r, w, ok := byteEscapes(s, j, `\x`); ok && r < rawByte {
				return r, w, true
			}
		}
		return rune(b), 4, true // a code point, as Python's and JavaScript's strings read it
	}
	if r := shortEscapes[s[j+1]]; r >= 0 {
		return r, 2, true
	}
	return 0, 0, false
}

// shortEscapes maps c to the character "\\c" stands for, -1 where it
// stands for none.
var shortEscapes = func() (t [256]rune) {
	for i := range t {
		t[i] = -1
	}
	for _, c := range "/\\\"'`" {
		t[c] = c
	}
	t['n'], t['r'], t['t'], t['b'], t['f'], t['v'], t['0'] = '\n', '\r', '\t', '\b', '\f', '\v', 0
	return t
}()

// utf16Escape decodes intro (`\u` or "%u", either case of the letter)
// and four hex digits at s[j], a surrogate pair written as two of them
// combined.
func utf16Escape(s string, j int, intro string) (rune, int, bool) {
	r, ok := hex4(s, j+len(intro))
	if !ok {
		return 0, 0, false
	}
	w := len(intro) + 4
	if utf16.IsSurrogate(r) {
		at := j + w
		if at+len(intro) <= len(s) && strings.EqualFold(s[at:at+len(intro)], intro) {
			if r2, ok := hex4(s, at+len(intro)); ok {
				if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
					return c, 2 * w, true
				}
			}
		}
	}
	return r, w, true
}

// hex4 reads four hex digits at s[j].
func hex4(s string, j int) (rune, bool) {
	if j+4 > len(s) {
		return 0, false
	}
	v, ok := hexValue(s[j : j+4])
	return rune(v), ok
}

// hexByte reads two hex digits at s[j].
func hexByte(s string, j int) (byte, bool) {
	if j+2 > len(s) {
		return 0, false
	}
	hi, lo := unhex[s[j]], unhex[s[j+1]]
	if hi > 15 || lo > 15 {
		return 0, false
	}
	return hi<<4 | lo, true
}

// hexValue reads s, 1 to 8 hex digits.
func hexValue(s string) (uint32, bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	var v uint32
	for i := 0; i < len(s); i++ {
		d := unhex[s[i]]
		if d > 15 {
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

// unhex maps hex digits (either case) to their value and every other byte
// to 255.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 255
	}
	for i := 0; i < 10; i++ {
		t['0'+i] = byte(i)
	}
	for i := 0; i < 6; i++ {
		t['a'+i], t['A'+i] = byte(10+i), byte(10+i)
	}
	return t
}()

// charRef decodes an HTML character reference: decimal (&#47;) or hex
// (&#x2F;), the ';' optional as browsers read them, or a named one for
// ASCII punctuation (&sol;), its name in any case.
func charRef(s string, j int) (rune, int, bool) {
	r, end, ok := charRefBody(s, j+1)
	return r, end - j, ok
}

// charRefBody decodes the body of an HTML character reference, what
// follows its '&', at s[i]: the character and where the reference ends.
func charRefBody(s string, i int) (rune, int, bool) {
	if i < len(s) && s[i] == '#' {
		i++
		base := uint32(10)
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			base = 16
			i++
		}
		start := i
		var v uint32
		for i < len(s) && i-start < 8 {
			d := uint32(unhex[s[i]])
			if d >= base {
				break
			}
			v = v*base + d
			i++
		}
		if i == start || v > utf8.MaxRune {
			return 0, 0, false
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		return rune(v), i, true
	}
	var name [maxEntityName]byte
	n := 0
	for ; i < len(s) && 'a' <= lower[s[i]] && lower[s[i]] <= 'z'; i++ {
		if n == len(name) {
			return 0, 0, false
		}
		name[n] = lower[s[i]]
		n++
	}
	r, legacy := entity(string(name[:n]))
	switch {
	case r < 0:
		return 0, 0, false
	case i < len(s) && s[i] == ';':
		return r, i + 1, true
	case legacy:
		return r, i, true
	}
	return 0, 0, false
}

// maxEntityName is the longest name in entities.
const maxEntityName = 8

// entityNames are the names entity knows.
var entityNames = []string{
	"amp", "lt", "gt", "quot", "nbsp", "apos", "excl", "num", "dollar", "percnt", "lpar", "rpar",
	"ast", "midast", "plus", "comma", "period", "sol", "colon", "semi", "equals", "quest", "commat",
	"lsqb", "lbrack", "bsol", "rsqb", "rbrack", "hat", "lowbar", "underbar", "grave", "lcub", "lbrace",
	"verbar", "vert", "vertline", "rcub", "rbrace", "newline", "tab",
}

// entityInitials are, for each ASCII character, the first letters of the
// names entity knows for it.
var entityInitials = func() (t [utf8.RuneSelf][]byte) {
	for _, name := range entityNames {
		if r, _ := entity(name); r < utf8.RuneSelf {
			t[r] = append(t[r], name[0])
		}
	}
	return t
}()

// entity returns the character of an HTML named character reference of
// an ASCII character (or the non-breaking space) by its lower-case name,
// -1 for another name, and whether it may be written without its ';'.
func entity(name string) (r rune, legacy bool) {
	switch name {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "nbsp":
		return '\u00a0', true
	case "apos":
		return '\'', false
	case "excl":
		return '!', false
	case "num":
		return '#', false
	case "dollar":
		return '$', false
	case "percnt":
		return '%', false
	case "lpar":
		return '(', false
	case "rpar":
		return ')', false
	case "ast", "midast":
		return '*', false
	case "plus":
		return '+', false
	case "comma":
		return ',', false
	case "period":
		return '.', false
	case "sol":
		return '/', false
	case "colon":
		return ':', false
	case "semi":
		return ';', false
	case "equals":
		return '=', false
	case "quest":
		return '?', false
	case "commat":
		return '@', false
	case "lsqb", "lbrack":
		return '[', false
	case "bsol":
		return '\\', false
	case "rsqb", "rbrack":
		return ']', false
	case "hat":
		return '^', false
	case "lowbar", "underbar":
		return '_', false
	case "grave":
		return '`', false
	case "lcub", "lbrace":
		return '{', false
	case "verbar", "vert", "vertline":
		return '|', false
	case "rcub", "rbrace":
		return '}', false
	case "newline":
		return '\n', false
	case "tab":
		return '\t', false
	}
	return -1, false
}
