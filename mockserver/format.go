package mockserver

import (
	"fmt"
	"log/slog"
	"net/url"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// The types below hold an API key, a licence key or a pre-signed URL:
// each prints (fmt, any verb) and logs (slog) as fmt prints a struct, with
// those REDACTED, as the clients print theirs.

// redactedKey is how a key prints: REDACTED, or "" when there is none.
func redactedKey(k string) string {
	if k == "" {
		return ""
	}
	return redact.Redacted
}

// Format prints the options with each of APIKeys REDACTED.
func (o HostedOptions) Format(f fmt.State, verb rune) {
	type options HostedOptions // without this method
	if o.APIKeys != nil {
		keys := make([]string, len(o.APIKeys))
		for i, k := range o.APIKeys {
			keys[i] = redactedKey(k)
		}
		o.APIKeys = keys
	}
	redact.FormatCopy(f, verb, "mockserver.HostedOptions", "mockserver.options", options(o))
}

// LogValue makes slog log the options as Format's %+v prints them.
func (o HostedOptions) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", o)) }

// Format prints the test server with its API key REDACTED.
func (s HostedTestServer) Format(f fmt.State, verb rune) {
	type server HostedTestServer // without this method
	s.APIKey, s.keys = redactedKey(s.APIKey), nil
	redact.FormatCopy(f, verb, "mockserver.HostedTestServer", "mockserver.server", server(s))
}

// LogValue makes slog log the test server as Format's %+v prints it.
func (s HostedTestServer) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", s)) }

// Format prints the options with LicenseKey REDACTED.
func (o BGContainerOptions) Format(f fmt.State, verb rune) {
	type options BGContainerOptions // without this method
	o.LicenseKey = redactedKey(o.LicenseKey)
	redact.FormatCopy(f, verb, "mockserver.BGContainerOptions", "mockserver.options", options(o))
}

// LogValue makes slog log the options as Format's %+v prints them.
func (o BGContainerOptions) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", o)) }

// Format prints the test server with LicenseKey REDACTED.
func (s BGContainerTestServer) Format(f fmt.State, verb rune) {
	type server BGContainerTestServer // without this method
	s.LicenseKey = redactedKey(s.LicenseKey)
	redact.FormatCopy(f, verb, "mockserver.BGContainerTestServer", "mockserver.server", server(s))
}

// LogValue makes slog log the test server as Format's %+v prints it.
func (s BGContainerTestServer) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", s)) }

// Format prints the container as "mockserver.BGContainer(license key
// REDACTED)" whatever the verb: its fields are internals, and printing
// them through a pointer (as %s does) would show the service's licence key.
// A nil *BGContainer prints as "<nil>".
func (BGContainer) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprint(f, "mockserver.BGContainer(license key REDACTED)")
}

// LogValue makes slog log the container as Format prints it.
func (b *BGContainer) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(b)) }

// Format prints the server as "mockserver.Hosted(API keys REDACTED)"
// whatever the verb: its fields are internals, and printing them through
// a pointer (as %s does) would show the service's API keys. A nil *Hosted
// prints as "<nil>".
func (Hosted) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprint(f, "mockserver.Hosted(API keys REDACTED)")
}

// LogValue makes slog log the server as Format prints it.
func (h *Hosted) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(h)) }

// Format prints the record with UploadURL's query values (its signature)
// REDACTED.
func (r HostedPresetRecord) Format(f fmt.State, verb rune) {
	type record HostedPresetRecord // without this method
	r.UploadURL = redact.SignedURL(r.UploadURL)
	redact.FormatCopy(f, verb, "mockserver.HostedPresetRecord", "mockserver.record", record(r))
}

// LogValue makes slog log the record as Format's %+v prints it.
func (r HostedPresetRecord) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", r)) }

// LogValue makes slog log the list with each record as its Format's %+v
// prints it.
func (l HostedPresetList) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", l)) }

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
