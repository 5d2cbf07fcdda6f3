package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// fuzzSecrets are the secrets the fuzz tests spell: long and short, with
// the characters escapes are made of, and beyond ASCII.
var fuzzSecrets = []string{
	`Lic-7f3A/9c2e+51b4=4d0e@9a7f:6b8c 1d2e`,
	`k%41&amp;\u0041=3D+x<"é😀`,
	"Zm9vYmFyYmF6cXV4LXNpZw",
	"tok+1",
}

// spellRune writes r as scheme picks, falling back to r itself where the
// scheme cannot spell it. fold allows another case.
func spellRune(b *strings.Builder, r rune, scheme byte, fold bool) {
	u := string(r)
	switch scheme % 19 {
	case 1:
		if fold {
			u = strings.ToUpper(u)
		}
	case 2:
		if fold {
			u = strings.ToLower(u)
		}
	case 3, 4:
		for _, c := range []byte(u) {
			f := "%%%02X"
			if scheme%19 == 4 {
				f = "%%%02x"
			}
			fmt.Fprintf(b, f, c)
		}
		return
	case 5, 6:
		f := `\u%04x`
		if scheme%19 == 6 {
			f = `\u%04X`
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(b, f+f, r1, r2)
		} else {
			fmt.Fprintf(b, f, r)
		}
		return
	case 7:
		u = fmt.Sprintf("&#%d;", r)
	case 8:
		u = fmt.Sprintf("&#x%x;", r)
	case 9:
		for _, c := range []byte(u) {
			fmt.Fprintf(b, "=%02X", c)
		}
		return
	case 10:
		if n, ok := map[rune]string{'&': "&amp;", '<': "&lt;", '"': "&quot;", '/': "&sol;", '+': "&plus;", '=': "&equals;", '@': "&commat;", ':': "&colon;"}[r]; ok {
			u = n
		}
	case 11:
		if r == ' ' {
			u = "+"
		}
	case 12:
		if n, ok := map[rune]string{'/': `\/`, '"': `\"`, '\\': `\\`}[r]; ok {
			u = n
		}
	case 13:
		if r < 0x80 {
			u = fmt.Sprintf(`\x%02x`, r)
		}
	case 14:
		u = fmt.Sprintf("%%u%04X", r)
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			u = fmt.Sprintf("%%u%04X%%u%04X", r1, r2)
		}
	case 15:
		u = fmt.Sprintf(`\u{%x}`, r)
	case 16: // percent-escaped twice
		for _, c := range []byte(u) {
			fmt.Fprintf(b, "%%25%02X", c)
		}
		return
	case 17: // HTML escaped twice
		u = fmt.Sprintf("&amp;#%d;", r)
	case 18: // JSON escaped twice
		if r < 0x10000 {
			u = fmt.Sprintf(`\\u%04x`, r)
		}
	}
	b.WriteString(u)
}

// spell writes secret as choices pick: character by character (with
// quoted-printable soft line breaks where a choice has its high bit), or
// whole in hex or base64, wrapped over lines.
func spell(secret string, choices []byte) string {
	pick := func(i int) byte {
		if len(choices) == 0 {
			return 0
		}
		return choices[i%len(choices)]
	}
	long := len(secret) >= MinFoldLen
	if long && pick(0)&0x70 == 0x70 {
		b := []byte(secret)
		var enc string
		switch pick(1) % 4 {
		case 0:
			enc = hex.EncodeToString(b)
			if pick(2)%2 == 0 {
				enc = strings.ToUpper(enc)
			}
		case 1:
			enc = base64.StdEncoding.EncodeToString(b)
		case 2:
			enc = base64.RawURLEncoding.EncodeToString(b)
		case 3:
			enc = base64.URLEncoding.EncodeToString(b)
		}
		if n := int(pick(3)%32) + 4; pick(4)%2 == 0 {
			enc = wrapLines(enc, n, []string{"\r\n", "\n", "\r\n "}[pick(5)%3])
		}
		return enc
	}
	var b strings.Builder
	i := 0
	for _, r := range secret {
		c := pick(i + 1)
		if i > 0 && c&0x80 != 0 {
			b.WriteString("=\r\n")
		}
		spellRune(&b, r, c, long)
		i++
	}
	return b.String()
}

// FuzzEverySpellingIsRedacted: a secret spelled in any mix of the
// supported spellings, between any text, is gone from what Redact returns.
func FuzzEverySpellingIsRedacted(f *testing.F) {
	f.Add(uint8(0), "a ", " b", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add(uint8(1), "%", "=", []byte{0x83, 0x05, 0x8a, 0x0c})
	f.Add(uint8(2), "", "", []byte{0x70, 1, 0, 7, 0, 2})
	f.Add(uint8(3), "\\", "&", []byte{11, 3, 9})
	f.Fuzz(func(t *testing.T, which uint8, prefix, suffix string, choices []byte) {
		secret := fuzzSecrets[int(which)%len(fuzzSecrets)]
		sp := spell(secret, choices)
		m := New(fuzzSecrets...)
		got := m.Redact(prefix + sp + suffix)
		if strings.Contains(got, sp) || !strings.Contains(got, Redacted) {
			t.Fatalf("%q spelled %q survives: %q", secret, sp, got)
		}
		if len(secret) >= MinFoldLen && strings.Contains(strings.ToLower(got), strings.ToLower(secret)) {
			t.Fatalf("%q survives: %q", secret, got)
		}
	})
}

// FuzzPlainText compares Redact with a simple reference on text that has
// no escapes and no line breaks, where a secret can only be spelled as it
// is (in any case when long), in hex or in base64: the two must agree,
// so text without secrets comes back unchanged.
func FuzzPlainText(f *testing.F) {
	secrets := []string{"Lic-7f3A9c2e", "tok", "XyZ_12-abKs"}
	f.Add("a Lic-7F3A9C2E b 4c69632d37663341396332 tok TOK")
	f.Add("TGljLTdmM0E5YzJl WHlaXzEyLWFiS3M= lIC-7f3a9C2E")
	f.Add("xyz_12-ABKſ XyZ_12-abKs")
	m := New(secrets...)
	f.Fuzz(func(t *testing.T, text string) {
		text = strings.Map(func(r rune) rune {
			if strings.ContainsRune("%\\&=+\r\n", r) {
				return -1
			}
			return r
		}, text)
		if got, want := m.Redact(text), refRedact(secrets, text); got != want {
			t.Fatalf("Redact(%q)\n got %q\nwant %q", text, got, want)
		}
	})
}

// refForm is one spelling refRedact looks for: pat, or a prefix of it at
// least min bytes long.
type refForm struct {
	pat  string
	min  int
	fold bool // in any case (Unicode simple folding)
	b64  bool // '-' and '_' read as '+' and '/'
}

// refRedact is Redact for text without escapes, written plainly: at each
// position, the longest spelling of any form starting there is replaced,
// with every spelling that starts inside it and ends past it.
func refRedact(secrets []string, text string) string {
	var forms []refForm
	for _, s := range secrets {
		if len(s) < MinFoldLen {
			forms = append(forms, refForm{pat: s, min: len(s)})
			continue
		}
		b := []byte(s)
		h := hex.EncodeToString(b)
		forms = append(forms, refForm{pat: s, min: len(s), fold: true}, refForm{pat: h, min: len(h), fold: true})
		for lead := 0; lead < 3; lead++ {
			e := base64.RawStdEncoding.EncodeToString(append(make([]byte, lead), b...))
			lo, hi := (8*lead+5)/6, (8*lead+8*len(b))/6
			p := e[lo:hi]
			if lead == 0 {
				p = base64.StdEncoding.EncodeToString(b)
			}
			forms = append(forms, refForm{pat: p, min: hi - lo, b64: true})
		}
	}
	longest := func(i int) int {
		best := -1
		for _, f := range forms {
			if n := refPrefix(text[i:], f); n > 0 && i+n > best {
				best = i + n
			}
		}
		return best
	}
	var out strings.Builder
	for i := 0; i < len(text); {
		best := longest(i)
		for j := i + 1; j < best; j++ {
			best = max(best, longest(j))
		}
		if best < 0 {
			out.WriteByte(text[i])
			i++
			continue
		}
		out.WriteString(Redacted)
		i = best
	}
	return out.String()
}

// refPrefix returns the length of the longest spelling of f at the start
// of text, 0 if none.
func refPrefix(text string, f refForm) int {
	j, end := 0, 0
	for k, pr := range f.pat {
		if k >= f.min {
			end = j
		}
		if j >= len(text) {
			return end
		}
		r, w := utf8.DecodeRuneInString(text[j:])
		if r == utf8.RuneError && w == 1 {
			return end
		}
		switch {
		case r == pr:
		case f.fold && unicode.SimpleFold(r) != r && strings.EqualFold(string(r), string(pr)):
		case f.b64 && (pr == '+' && r == '-' || pr == '/' && r == '_'):
		default:
			return end
		}
		j += w
	}
	return j
}
