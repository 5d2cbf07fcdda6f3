// Package redacttest helps the tests of types that print themselves
// redacted: it shows a value as every fmt verb and both slog handlers do.
package redacttest

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Printings returns v as every fmt verb and both slog handlers show it,
// keyed by "%v" ... "slog text", "slog JSON".
func Printings(v any) map[string]string {
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("m", "value", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "value", v)
	out["slog text"], out["slog JSON"] = text.String(), js.String()
	return out
}

// AssertHidden checks that no printing of any of values shows secret, in
// any case or in hex.
func AssertHidden(t testing.TB, secret string, values ...any) {
	t.Helper()
	for i, v := range values {
		for how, s := range Printings(v) {
			low := strings.ToLower(s)
			assert.NotContains(t, low, strings.ToLower(secret), "value %d (%T), %s", i, v, how)
			assert.NotContains(t, low, fmt.Sprintf("%x", secret), "value %d (%T), %s", i, v, how)
		}
	}
}
