package transport

import (
	"net/url"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// Redacted replaces every secret in errors and logs.
const Redacted = redact.Redacted

// redactQueryValues returns u as text with every query value, and every
// bare query token without "=", replaced by REDACTED (pre-signed URLs
// carry their signature, credential and token in the query), the password
// hidden and the fragment dropped.
func redactQueryValues(u *url.URL) string { return redact.QueryRedacted(u) }

// URLSecrets returns what in rawURL should be treated as secret when the
// URL itself travels in a request (a webhook URL sent as a query value):
// see redact.URLSecrets, the rule the mock servers' logs follow too.
func URLSecrets(rawURL string) []string { return redact.URLSecrets(rawURL) }

// echoesQuery reports whether u's host or path holds one of u's query
// values, as is, escaped or in another case: a pre-signed URL whose
// server repeats its signature there, which only the call's redactor
// (call.redact) hides, since redactQueryValues keeps host and path.
func echoesQuery(u *url.URL) bool {
	values := redact.QueryValues(u)
	if len(values) == 0 {
		return false
	}
	hp := strings.ToLower(u.Host + "/" + u.EscapedPath() + "/" + u.Path)
	for _, v := range values {
		if strings.Contains(hp, strings.ToLower(v)) {
			return true
		}
	}
	return false
}
