package apierr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The most bytes of one piece of text from a server (or from a caller's
// input) that an error string or a log line quotes. Every cut of such text
// in the client packages and the shared layers is made by Excerpt, after
// redaction, at one of these lengths.
const (
	// MaxQuotedValue bounds a status, a state or a malformed value.
	MaxQuotedValue = 32
	// MaxQuotedID bounds an id, an error code or a parameter name.
	MaxQuotedID = 64
	// MaxQuotedName bounds a file name or a request id.
	MaxQuotedName = 128
	// MaxQuotedMessage bounds a service's message, a job or preset id,
	// or a URL the service answered.
	MaxQuotedMessage = 200
	// MaxQuotedLine bounds a whole error line built from a service's text.
	MaxQuotedLine = 300
	// MaxQuotedError bounds the text of an error of a decoder (JSON)
	// quoted in an error string.
	MaxQuotedError = 512
)

// ExcerptLengths returns every length text is cut to by Excerpt in this
// module (the MaxQuoted constants), shortest first: a test that places a
// secret across each of them checks that no prefix of it survives a cut.
func ExcerptLengths() []int {
	return []int{MaxQuotedValue, MaxQuotedID, MaxQuotedName, MaxQuotedMessage, MaxQuotedLine, MaxQuotedError}
}

// Excerpt returns s fit to be quoted in an error string or a log line:
// every secret replaced by redact (nil: none), whitespace runs (newlines
// included) collapsed into single spaces, then cut to at most max bytes on
// a rune boundary, a cut marked with "…". Redacting before cutting is what
// keeps a secret that straddles the cut from surviving minus its last
// bytes; the text is redacted again once collapsed, in case collapsing
// joined a secret's parts. Every piece of server text an error quotes
// passes through Excerpt.
func Excerpt(redact func(string) string, s string, max int) string {
	if redact != nil {
		s = redact(s)
	}
	if c := collapseSpace(s); c != s {
		s = c
		if redact != nil {
			s = redact(s)
		}
	}
	return cut(s, max)
}

// cut returns s when it has at most max bytes, else its longest prefix of
// at most max bytes that ends on a rune boundary, followed by "…".
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max] + "…"
}

// collapseSpace is strings.Join(strings.Fields(s), " "), returning s itself
// (no copy) when it has nothing to collapse.
func collapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// needsCollapse reports whether s has a leading or trailing space, a
// space other than ' ', or two spaces in a row.
func needsCollapse(s string) bool {
	prevSpace := true // a leading space needs collapsing
	for _, r := range s {
		sp := unicode.IsSpace(r)
		if sp && (prevSpace || r != ' ') {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}
