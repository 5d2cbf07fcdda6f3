// Package redact removes secrets (API keys, licence keys, pre-signed
// signatures, webhook tokens) from text in every spelling a server, an
// encoder or a log may give them, and holds the rule that says which parts
// of a URL are secret. It imports no client package, so the clients'
// transport and the mock servers share it.
//
// A Matcher does not keep a list of pre-computed spellings. It scans the
// text once and, where a secret may start, reads the text a character at a
// time, decoding what an encoder may have escaped, and compares each
// character with the secret's:
//
//   - percent-escapes (%2F, %2f, %C3%A9, JavaScript's %uXXXX), any subset
//     of the characters escaped (Go's, Python's quote and quote_plus,
//     JavaScript's encodeURI and encodeURIComponent), "+" as a space;
//   - JSON and JavaScript string escapes (\uXXXX with surrogate pairs,
//     \u{X}, \UXXXXXXXX, \xHH, \/, \\, \", \n ...);
//   - HTML character references (&#NN;, &#xHH;, &amp;, &sol; ...);
//   - quoted-printable escapes (=3D) and soft line breaks (=CRLF);
//   - each of a character's escapes escaped once more, in the same
//     scheme or another: "%252F" and "%2B" (a URL inside a URL's query),
//     `\\u003c` (JSON inside JSON), "&amp;lt;" (HTML escaped twice),
//     `\u0026lt;` (HTML inside Go's JSON), "%26lt%3B", "%5Cu003c";
//   - in any case: a secret of MinFoldLen bytes or more matches with its
//     letters in any case (ASCII and Unicode simple folding), and the hex
//     digits and letters of every escape are read in either case.
//
// A secret of MinFoldLen bytes or more also matches in hex (either case)
// and in base64 (standard and URL alphabets, padded or not, and, inside a
// larger base64 string, at each offset modulo 3, the characters that
// encode its bits alone), each also escaped as above and wrapped over
// lines (MIME bodies and folded headers).
//
// The whole span of text that spells a secret is replaced by Redacted;
// where two secrets' spellings overlap, the span of both.
package redact

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted replaces every secret in errors and logs.
const Redacted = "REDACTED"

// MinFoldLen is the shortest secret that also matches in another case and
// in hex and base64: the other cases of a shorter one are ordinary words,
// and its encodings (8 hex digits for 4 bytes) occur by chance in ids and
// hashes. Keys, licence keys and signatures are far longer.
const MinFoldLen = 8

// target is one spelling to look for: a secret (its characters compared
// after decoding) or one of its hex or base64 encodings.
type target struct {
	pat string
	// min is the shortest prefix of pat that is a match: len(pat) but for
	// base64, whose padding, last character (which holds bits of what
	// follows inside a larger string) may be missing.
	min int
	// fold: the letters of pat match in any case.
	fold bool
	// b64: '+' and '/' match '-' and '_' too (the URL alphabet); line
	// breaks (and the blanks that fold a header) between characters are
	// skipped, as MIME wraps base64. hex: fold and those line breaks.
	b64, hex bool
}

// wrap reports whether line breaks between characters are skipped.
func (t *target) wrap() bool { return t.b64 || t.hex }

// Matcher replaces secrets in text. Make one with New; a nil *Matcher
// replaces nothing. It is immutable and safe for concurrent use.
type Matcher struct {
	targets []target
	// pair is indexed by the first two bytes of the text at a position:
	// false means no target can start there.
	pair *[1 << 16]bool
	// triple is a bitset over a hash of the first three bytes of a
	// spelling whose first two characters are literal ASCII (the first
	// one possibly decoded from an escape), checked after pair.
	triple *[1 << 13]byte
	// follow is a bitset over the first bytes of a target's first two
	// characters (their variants), with no escape: admits reads an escape
	// in second place before it checks it.
	follow *[1 << 13]byte
	// anyNext marks the first bytes of one-character targets, which admits
	// admits whatever follows.
	anyNext [utf8.RuneSelf]bool
	// ascii and other index the targets by the fold key of their first
	// character.
	ascii [utf8.RuneSelf][]int32
	other map[rune][]int32
}

// New returns a Matcher for secrets (empty ones are ignored), nil when
// there is none.
func New(secrets ...string) *Matcher {
	return (*Matcher)(nil).With(secrets...)
}

// With returns a Matcher for m's secrets and secrets; m itself when
// secrets adds nothing. A nil m is a Matcher with no secrets.
func (m *Matcher) With(secrets ...string) *Matcher {
	var ts []target
	if m != nil {
		ts = slices.Clip(m.targets) // appending must not share m's array
	}
	n := len(ts)
	for _, s := range secrets {
		ts = appendTargets(ts, s)
	}
	if len(ts) == n {
		return m
	}
	// Dedupe: a secret given twice.
	seen := make(map[target]bool, len(ts))
	uniq := make([]target, 0, len(ts))
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			uniq = append(uniq, t)
		}
	}
	out := &Matcher{targets: uniq, pair: new([1 << 16]bool), triple: new([1 << 13]byte), follow: new([1 << 13]byte)}
	for i := range uniq {
		out.index(int32(i), &uniq[i])
	}
	return out
}

// appendTargets appends the spellings of secret s to ts.
func appendTargets(ts []target, s string) []target {
	if s == "" {
		return ts
	}
	if len(s) < MinFoldLen {
		return append(ts, target{pat: s, min: len(s)})
	}
	b := []byte(s)
	h := hex.EncodeToString(b)
	ts = append(ts, target{pat: s, min: len(s), fold: true}, target{pat: h, min: len(h), fold: true, hex: true})
	// Inside a larger base64 string the secret is spelled according to
	// its offset modulo 3, and its first and last characters mix its bits
	// with its neighbours': for each offset, the run from the first
	// character holding none of the leading bytes' bits to the last
	// holding none of what follows. At offset 0 the run may go on with
	// the last character and the padding of the secret encoded alone.
	for lead := 0; lead < 3; lead++ {
		e := base64.RawStdEncoding.EncodeToString(append(make([]byte, lead), b...))
		lo, hi := (8*lead+5)/6, (8*lead+8*len(b))/6
		t := target{pat: e[lo:hi], min: hi - lo, b64: true}
		if lead == 0 {
			t.pat = base64.StdEncoding.EncodeToString(b)
		}
		ts = append(ts, t)
	}
	return ts
}

// index records target i in the first-character index and in the pair
// filter.
func (m *Matcher) index(i int32, t *target) {
	r0, w0 := patRune(t.pat, 0)
	var keys []rune
	for _, v := range t.variants(r0) {
		if k := foldKey(v); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, key := range keys {
		if key < utf8.RuneSelf {
			m.ascii[key] = append(m.ascii[key], i)
			continue
		}
		if m.other == nil {
			m.other = map[rune][]int32{}
		}
		m.other[key] = append(m.other[key], i)
	}
	// Second bytes that may follow a literal first character.
	var second [256]bool
	if r0 >= utf8.RuneSelf || w0 == len(t.pat) {
		// A multi-byte first character, or a one-character target:
		// anything may follow its first byte.
		for c := range second {
			second[c] = true
		}
	} else {
		r1, _ := patRune(t.pat, w0)
		for _, v := range t.variants(r1) {
			second[firstByte(v)] = true
		}
		for _, c := range escapeLeads {
			second[c] = true
		}
		second['\r'], second['\n'] = true, true
	}
	for _, v := range t.variants(r0) {
		b0 := firstByte(v)
		for c, ok := range second {
			// After the first byte of a multi-byte spelling comes the
			// rest of it.
			if ok || v >= utf8.RuneSelf {
				m.setPair(b0, byte(c))
			}
		}
		// The first character escaped: the escape's first two bytes.
		m.indexEscapes(v)
	}
	m.indexTriples(t, r0, w0)
}

// indexTriples admits in the triple filter the first three bytes of the
// spellings of t whose first two characters, r0 (w0 bytes in t.pat) and
// the next, are ASCII written literally.
func (m *Matcher) indexTriples(t *target, r0 rune, w0 int) {
	if w0 == len(t.pat) {
		for _, v := range t.variants(r0) {
			if v < utf8.RuneSelf {
				m.anyNext[v] = true
			}
		}
		return
	}
	r1, w1 := patRune(t.pat, w0)
	var third [256]bool
	if w0+w1 == len(t.pat) {
		for c := range third {
			third[c] = true
		}
	} else {
		r2, _ := patRune(t.pat, w0+w1)
		for _, v := range t.variants(r2) {
			third[firstByte(v)] = true
		}
		for _, c := range escapeLeads {
			third[c] = true
		}
		third['\r'], third['\n'] = true, true
	}
	for _, v0 := range t.variants(r0) {
		for _, v1 := range t.variants(r1) {
			if v0 >= utf8.RuneSelf {
				continue
			}
			setBit(m.follow, uint16(v0)<<8|uint16(firstByte(v1)))
			if v1 >= utf8.RuneSelf {
				continue
			}
			for c, ok := range third {
				if ok {
					k := tripleKey(byte(v0), byte(v1), byte(c))
					m.triple[k>>3] |= 1 << (k & 7)
				}
			}
		}
	}
}

// tripleKey hashes three bytes into the triple filter.
func tripleKey(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 16
}

// admits reports whether a spelling whose first character is r, written
// up to s[j], may start there: what follows must pass the pair filter
// and, when it is a literal ASCII character, the triple filter.
func (m *Matcher) admits(r rune, s string, j int) bool {
	if r >= utf8.RuneSelf || j >= len(s) || m.anyNext[r] {
		return true
	}
	b0, b1 := byte(r), s[j]
	if !m.pair[uint16(b0)<<8|uint16(b1)] {
		return false
	}
	switch {
	case b1 == '=' || b1 == '\r' || b1 == '\n':
		return true // perhaps a line break that a wrapper put (see skip)
	case isLead[b1]:
		if getBit(m.follow, uint16(b0)<<8|uint16(b1)) {
			return true // written as is
		}
		if d, _, ok := decodeEscape(s, j); ok && (d == '\r' || d == '\n' || getBit(m.follow, uint16(b0)<<8|uint16(firstByte(d)))) {
			return true
		}
		d, _, ok := decodeNested(s, j)
		return ok && (d == '\r' || d == '\n' || getBit(m.follow, uint16(b0)<<8|uint16(firstByte(d))))
	case b1 >= utf8.RuneSelf || j+1 >= len(s):
		return true
	}
	k := tripleKey(b0, b1, s[j+1])
	return m.triple[k>>3]&(1<<(k&7)) != 0
}

func setBit(set *[1 << 13]byte, k uint16) { set[k>>3] |= 1 << (k & 7) }

func getBit(set *[1 << 13]byte, k uint16) bool { return set[k>>3]&(1<<(k&7)) != 0 }

// indexEscapes admits in the pair filter the first two bytes of every
// escape that may spell r.
func (m *Matcher) indexEscapes(r rune) {
	hi := firstByte(r) >> 4 // the first hex digit of a byte escape
	for _, lead := range []byte{'%', '='} {
		m.setPair(lead, "0123456789ABCDEF"[hi])
		m.setPair(lead, "0123456789abcdef"[hi])
	}
	for _, c := range []byte("uU") {
		m.setPair('%', c)
	}
	for _, c := range []byte("uUxX") {
		m.setPair('\\', c)
	}
	for i, d := range shortEscapes {
		if d == r {
			m.setPair('\\', byte(i))
		}
	}
	// Escaped twice (see decodeNested): an escape's first character
	// escaped ("%25XX", "%5Cu", "%26lt;", "=3D", two backslashes,
	// "&amp;", "&#37;", "&bsol;").
	m.setPair('%', '2')
	m.setPair('%', '3')
	m.setPair('%', '5')
	m.setPair('=', '2')
	m.setPair('=', '3')
	m.setPair('=', '5')
	for _, c := range escapeLeads {
		for _, e := range entityInitials[c] {
			m.setPair('&', e)
			m.setPair('&', e-'a'+'A')
		}
	}
	m.setPair('\\', '\\')
	m.setPair('&', 'a')
	m.setPair('&', 'A')
	m.setPair('&', '#')
	if r < utf8.RuneSelf {
		for _, c := range entityInitials[r] {
			m.setPair('&', c)
			m.setPair('&', c-'a'+'A')
		}
	} else if r == '\u00a0' {
		m.setPair('&', 'n')
		m.setPair('&', 'N')
	}
	if r == ' ' {
		for c := 0; c < 256; c++ {
			m.setPair('+', byte(c))
		}
	}
}

// escapeLeads are the bytes that start an escape.
var escapeLeads = []byte{'%', '\\', '&', '=', '+'}

func (m *Matcher) setPair(b0, b1 byte) {
	m.pair[uint16(b0)<<8|uint16(b1)] = true
}

// variants returns r and every rune that spells it in t: its other
// cases when t folds, the URL alphabet's for base64.
func (t *target) variants(r rune) []rune {
	out := []rune{r}
	if t.b64 && r < utf8.RuneSelf && b64alt[r] != 0 {
		out = append(out, rune(b64alt[r]))
	}
	if !t.fold || r > unicode.MaxRune {
		return out
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// b64alt maps the standard base64 alphabet's '+' and '/' to the URL
// alphabet's '-' and '_'.
var b64alt = [utf8.RuneSelf]byte{'+': '-', '/': '_'}

// firstByte returns the first byte of r's UTF-8 encoding (of the byte
// itself for a rawByte).
func firstByte(r rune) byte {
	if r >= rawByte {
		return byte(r - rawByte)
	}
	var b [utf8.UTFMax]byte
	utf8.EncodeRune(b[:], r)
	return b[0]
}

// Redact returns s with every spelling of every secret replaced by
// Redacted; s itself when there is none.
func (m *Matcher) Redact(s string) string {
	if m == nil || len(s) == 0 {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for i := m.next(s, 0); i < len(s); i = m.next(s, i+1) {
		end := m.matchAt(s, i)
		if end < 0 {
			continue
		}
		// A secret that starts inside this span and ends past it (two
		// secrets overlapping) widens it: no tail of it survives.
		for p := m.next(s, i+1); p < end; p = m.next(s, p+1) {
			end = max(end, m.matchAt(s, p))
		}
		if done == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:i])
		b.WriteString(Redacted)
		done = end
		i = end - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// next returns the first position from i on where the pair filter admits
// the text, len(s) when there is none. The last byte is read with a 0
// after it, which every one-byte target admits (see index).
func (m *Matcher) next(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	pair := m.pair
	t := s[i:]
	prev := t[0]
	for j := 1; j < len(t); j++ {
		c := t[j]
		if pair[uint16(prev)<<8|uint16(c)] {
			return i + j - 1
		}
		prev = c
	}
	if pair[uint16(prev)<<8] {
		return len(s) - 1
	}
	return len(s)
}

// matchAt returns the end of the longest spelling of a target that starts
// at s[i], or -1.
func (m *Matcher) matchAt(s string, i int) int {
	c := s[i]
	best := -1
	// The targets tried read the text from s[i] every way they can; the
	// filters only spare trying those that cannot start here.
	tried := rune(-1)
	if c < utf8.RuneSelf {
		if len(m.ascii[lower[c]]) > 0 && m.admits(rune(c), s, i+1) {
			tried = rune(lower[c])
			best = m.try(m.ascii[tried], s, i, best)
		}
	} else {
		r, _ := patRune(s, i)
		tried = foldKey(r)
		best = m.try(m.lookup(tried), s, i, best)
	}
	if isLead[c] {
		d, w, ok := decodeEscape(s, i)
		if ok && foldKey(d) != tried && len(m.lookup(foldKey(d))) > 0 && m.admits(d, s, i+w) {
			best = m.try(m.lookup(foldKey(d)), s, i, best)
			tried = foldKey(d)
		}
		if dd, ww, ok := decodeNested(s, i); ok && foldKey(dd) != tried && len(m.lookup(foldKey(dd))) > 0 && m.admits(dd, s, i+ww) {
			best = m.try(m.lookup(foldKey(dd)), s, i, best)
		}
	}
	return best
}

// lookup returns the targets whose first character may be spelled by a
// character of fold key key.
func (m *Matcher) lookup(key rune) []int32 {
	if key < utf8.RuneSelf {
		return m.ascii[key]
	}
	return m.other[key]
}

// try matches the targets idx at s[i] and returns the furthest end, or
// best when none goes further.
func (m *Matcher) try(idx []int32, s string, i, best int) int {
	for _, ti := range idx {
		t := &m.targets[ti]
		budget := 16*len(t.pat) + 64
		if e := t.match(s, i, 0, &budget); e > best {
			best = e
		}
	}
	return best
}

// match returns the end of the longest spelling of t.pat[:n] for some n >=
// t.min that t.pat[k:] continues, starting at s[j], or -1. Where the text
// can be read in more than one way (a literal '%' or the escape it starts;
// a line break skipped or not), each reading is tried; budget bounds the
// steps, so that no text costs more than a few per byte of the pattern.
func (t *target) match(s string, j, k int, budget *int) int {
	pat := t.pat
	acc := -1 // the end of the longest match so far
	for ; k < len(pat); *budget-- {
		if k >= t.min {
			acc = j
		}
		if *budget <= 0 || j >= len(s) {
			return acc
		}
		c, p := s[j], pat[k]
		if !isLead[c] && c < utf8.RuneSelf && p < utf8.RuneSelf {
			// The common case: a literal ASCII character.
			if c == p || t.fold && lower[c] == lower[p] || t.b64 && b64alt[p] == c {
				j++
				k++
				continue
			}
			return acc
		}
		pr, pw := patRune(pat, k)
		var next [3]int // where the text goes on after each reading
		n := 0
		d := rune(-1) // the escape at s[j], if any
		if isLead[c] {
			var w int
			var ok bool
			if d, w, ok = decodeEscape(s, j); !ok {
				d = -1
			} else if t.eq(d, pr) {
				next[n] = j + w
				n++
			}
			if dd, ww, ok := decodeNested(s, j); ok && t.eq(dd, pr) {
				next[n] = j + ww
				n++
			}
		}
		if r, w := patRune(s, j); t.eq(r, pr) {
			next[n] = j + w
			n++
		}
		skip := -1
		if k > 0 && (c == '=' || c == '\r' || c == '\n' || d == '\r' || d == '\n') {
			skip = t.skip(s, j)
		}
		switch {
		case n == 1 && skip < 0:
			j, k = next[0], k+pw
			continue
		case n == 0 && skip >= 0:
			j = skip
			continue
		case n == 0:
			return acc
		}
		for _, nj := range next[:n] {
			if e := t.match(s, nj, k+pw, budget); e >= 0 {
				return e
			}
		}
		if skip >= 0 {
			if e := t.match(s, skip, k, budget); e >= 0 {
				return e
			}
		}
		return acc
	}
	return j
}

// skip returns where the text goes on after what a line wrapper put
// between two characters at s[j], or -1: a quoted-printable soft line
// break ("=" CRLF or "=" LF), and, for base64 and hex, line breaks and the
// blanks that fold a header line. The line breaks and blanks may be
// escaped themselves (a JSON string holding a MIME body has "\r\n").
func (t *target) skip(s string, j int) int {
	if s[j] == '=' {
		if e := t.run(s, j+1, '\r', '\n'); e > j+1 {
			return e
		}
		return -1
	}
	e := t.run(s, j, '\r', '\n')
	if e == j || !t.wrap() {
		return -1
	}
	// The blanks that fold a header, as written: a '+' after a line break
	// is base64's, not a space.
	for e < len(s) && (s[e] == ' ' || s[e] == '\t') {
		e++
	}
	return e
}

// run returns the end of the run of characters a and b, written or
// escaped, at s[j]: j when there is none.
func (t *target) run(s string, j int, a, b rune) int {
	for j < len(s) {
		c := s[j]
		if rune(c) == a || rune(c) == b {
			j++
			continue
		}
		if !isLead[c] {
			break
		}
		if d, w, ok := decodeEscape(s, j); ok && (d == a || d == b) {
			j += w
			continue
		}
		d, w, ok := decodeNested(s, j)
		if !ok || d != a && d != b {
			break
		}
		j += w
	}
	return j
}

// eq reports whether text rune r spells pattern rune p.
func (t *target) eq(r, p rune) bool {
	return r == p || t.fold && foldKey(r) == foldKey(p) || t.b64 && p < utf8.RuneSelf && b64alt[p] != 0 && rune(b64alt[p]) == r
}

// rawByte+b stands for byte b where it is not part of valid UTF-8: it is
// compared as itself and folds to nothing else.
const rawByte = unicode.MaxRune + 1

// patRune decodes the character of a pattern or a text at k.
func patRune(s string, k int) (rune, int) {
	if c := s[k]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, w := utf8.DecodeRuneInString(s[k:])
	if r == utf8.RuneError && w == 1 {
		return rawByte + rune(s[k]), 1
	}
	return r, w
}

// foldKey returns the same rune for every rune of one simple case-folding
// orbit (ASCII letters in lower case); rawBytes are their own key.
func foldKey(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(lower[r])
	}
	return foldKeyRune(r)
}

// foldKeyRune is foldKey of a rune beyond ASCII.
func foldKeyRune(r rune) rune {
	if r > unicode.MaxRune {
		return r
	}
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	if min < utf8.RuneSelf {
		return rune(lower[min])
	}
	return min
}

// lower maps the ASCII upper-case letters to lower case and every other
// byte to itself.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// isLead marks the bytes where the matcher looks past the literal
// character: escapes and line breaks.
var isLead = func() (t [256]bool) {
	for _, c := range escapeLeads {
		t[c] = true
	}
	t['\r'], t['\n'] = true, true
	return t
}()
