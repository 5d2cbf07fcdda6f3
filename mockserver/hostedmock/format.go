package hostedmock

import (
	"fmt"
	"log/slog"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// The types below hold an API key or a pre-signed URL: each prints (fmt,
// any verb) and logs (slog) as fmt prints a struct, with those REDACTED,
// as the clients print theirs. Options (hostedsvc.Config) does so by its
// own methods.

// Format prints the test server with its API key REDACTED.
func (s TestServer) Format(f fmt.State, verb rune) {
	type server TestServer // without this method
	s.APIKey, s.keys = redact.Mask(s.APIKey), nil
	redact.FormatCopy(f, verb, "hostedmock.TestServer", "hostedmock.server", server(s))
}

// LogValue makes slog log the test server as Format's %+v prints it.
func (s TestServer) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", s)) }

// Format prints the server as "hostedmock.Server(API keys REDACTED)"
// whatever the verb: its fields are internals, and printing them through
// a pointer (as %s does) would show the service's API keys. A nil *Server
// prints as "<nil>".
func (Server) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprint(f, "hostedmock.Server(API keys REDACTED)")
}

// LogValue makes slog log the server as Format prints it.
func (h *Server) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(h)) }
