package bgmock

import (
	"fmt"
	"log/slog"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// The types below hold a licence key: each prints (fmt, any verb) and
// logs (slog) with it REDACTED, as the clients print theirs. Options
// (bgsvc.Config) does so by its own methods.

// Format prints the test server with LicenseKey REDACTED.
func (s TestServer) Format(f fmt.State, verb rune) {
	type server TestServer // without this method
	s.LicenseKey = redact.Mask(s.LicenseKey)
	redact.FormatCopy(f, verb, "bgmock.TestServer", "bgmock.server", server(s))
}

// LogValue makes slog log the test server as Format's %+v prints it.
func (s TestServer) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", s)) }

// Format prints the container as "bgmock.Server(license key REDACTED)"
// whatever the verb: its fields are internals, and printing them through
// a pointer (as %s does) would show the service's licence key. A nil
// *Server prints as "<nil>".
func (Server) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprint(f, "bgmock.Server(license key REDACTED)")
}

// LogValue makes slog log the container as Format prints it.
func (b *Server) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(b)) }
