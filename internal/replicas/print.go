package replicas

import (
	"log/slog"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// URLs returns the base URLs of the replicas that take work (Live), as a
// client prints them: user info hidden, query values REDACTED
// (redact.SignedURL). A nil list has none.
func (l *List[T]) URLs() []string {
	if l == nil {
		return nil
	}
	live := l.Live()
	out := make([]string, len(live))
	for i, r := range live {
		out[i] = redact.SignedURL(r.URL)
	}
	return out
}

// Describe is the text a client prints: name, then every replica's URL
// (URLs; fallback when l is nil or has none), then extra, as
// "name(url, url, extra)".
func (l *List[T]) Describe(name, fallback string, extra ...string) string {
	urls := l.URLs()
	if len(urls) == 0 && fallback != "" {
		urls = []string{redact.SignedURL(fallback)}
	}
	return name + "(" + strings.Join(append(urls, extra...), ", ") + ")"
}

// LogAttr is the attribute a client logs for its replicas: base_url for
// one, replicas (every URL) for several; fallback as for Describe.
func (l *List[T]) LogAttr(fallback string) slog.Attr {
	urls := l.URLs()
	if len(urls) == 0 && fallback != "" {
		urls = []string{redact.SignedURL(fallback)}
	}
	if len(urls) == 1 {
		return slog.String("base_url", urls[0])
	}
	return slog.Any("replicas", urls)
}
