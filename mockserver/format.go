package mockserver

import (
	"fmt"
	"log/slog"
	"net/url"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// Format prints the event with its URL's query values (pre-signed
// signatures) REDACTED, and what follows /Authorize/ in its path (a
// licence key, right or wrong) too.
func (e FaultEvent) Format(f fmt.State, verb rune) {
	type event FaultEvent // without this method
	e.URL = redactedRequestURL(e.URL)
	redact.FormatCopy(f, verb, "mockserver.FaultEvent", "mockserver.event", event(e))
}

// LogValue makes slog log the event as Format's %+v prints it.
func (e FaultEvent) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", e)) }

// redactedRequestURL returns a copy of u (a request's path and query)
// with its query values REDACTED, its user info and fragment dropped, and
// what follows /Authorize/ (in any case) in its path REDACTED.
func redactedRequestURL(u *url.URL) *url.URL {
	if u == nil {
		return nil
	}
	cp := *u
	cp.User, cp.Fragment, cp.RawFragment = nil, "", ""
	cp.RawQuery = redact.RedactQuery(cp.RawQuery)
	const marker = "/authorize/"
	for i := 0; i+len(marker) <= len(cp.Path); i++ {
		if asciiEqualFold(cp.Path[i:i+len(marker)], marker) {
			cp.Path, cp.RawPath = cp.Path[:i+len(marker)]+redact.Redacted, ""
			break
		}
	}
	return &cp
}

// asciiEqualFold reports whether a and b are equal but for the case of
// ASCII letters.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
