package replicas

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// Where is the text a client prints for where it sends its calls: base,
// its one base URL, for a nil list or one of one replica; else "replicas
// <URL>, <URL> (weight 3), ...", every replica with its weight when not
// 1. Each URL passes redact.SignedURL (user info and query values hidden),
// the whole passes hide (the client's redactor; nil: none).
func (l *List[T]) Where(base string, hide func(string) string) string {
	if hide == nil {
		hide = func(s string) string { return s }
	}
	if l == nil || !l.Many() {
		return hide(redact.SignedURL(base))
	}
	var b strings.Builder
	b.WriteString("replicas ")
	for i, r := range l.All() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(redact.SignedURL(r.URL))
		if r.Weight != 1 {
			fmt.Fprintf(&b, " (weight %d)", r.Weight)
		}
	}
	return hide(b.String())
}

// LogAttr is the attribute a client logs for where it sends its calls
// (see Where): "base_url" for one replica, "replicas" for several.
func (l *List[T]) LogAttr(base string, hide func(string) string) slog.Attr {
	if l == nil || !l.Many() {
		return slog.String("base_url", l.Where(base, hide))
	}
	return slog.String("replicas", l.Where(base, hide))
}
