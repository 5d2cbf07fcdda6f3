package webhook

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ fmt.Formatter  = (*Verifier)(nil)
	_ fmt.Stringer   = (*Verifier)(nil)
	_ slog.LogValuer = (*Verifier)(nil)
)

// formatSecrets are distinctive enough that none of their renderings turns
// up in a printout by chance.
var formatSecrets = [][]byte{[]byte("sk-live-Qz7fORMAT-one"), []byte("rotated-Wp3FORMAT-two")}

// secretForms returns the ways a secret (or its first bytes, for a
// printout cut short) could appear when a []byte is printed: as text, in
// decimal ("[115 107 ...]", fmt's %v of a []byte), in Go syntax
// ("0x73, 0x6b", %#v), in hex and in base64.
func secretForms(secret []byte) []string {
	var forms []string
	for _, s := range [][]byte{secret, secret[:6]} {
		forms = append(forms,
			string(s),
			strings.Trim(fmt.Sprint(s), "[]"),
			strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%#v", s), "[]byte{"), "}"),
			hex.EncodeToString(s),
			strings.ToUpper(hex.EncodeToString(s)),
		)
	}
	return append(forms, base64.StdEncoding.EncodeToString(secret), base64.RawURLEncoding.EncodeToString(secret))
}

func assertNoSecret(t *testing.T, printed string) {
	t.Helper()
	for _, secret := range formatSecrets {
		for _, form := range secretForms(secret) {
			require.NotContains(t, printed, form, "a secret leaked")
		}
	}
}

func newFormatVerifier(t *testing.T) *Verifier {
	t.Helper()
	v, err := NewVerifier(formatSecrets)
	require.NoError(t, err)
	return v
}

const formatWant = "webhook.Verifier(2 secrets, tolerance 5m0s)"

// Printing a Verifier through fmt, with any verb and wherever it sits,
// shows only the number of secrets and the tolerance.
func TestVerifierFormatHidesSecrets(t *testing.T) {
	t.Parallel()
	v := newFormatVerifier(t)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
		got := fmt.Sprintf(verb, v)
		assert.Equal(t, formatWant, got, verb)
		assertNoSecret(t, got)
	}
	assert.Equal(t, formatWant, v.String())
	assert.Equal(t, formatWant+"\n", fmt.Sprintln(v))

	type holder struct {
		Name     string
		Verifier *Verifier
	}
	containers := []any{
		holder{"pointer field", v},
		&holder{"pointer to holder", v},
		[]*Verifier{v, v},
		map[string]*Verifier{"v": v},
		// fmt does not call the methods of a struct it reaches through
		// reflection, here a Verifier by value: the secrets sit behind a
		// func, so it prints an address.
		reflect.ValueOf(v).Elem(),
	}
	for _, c := range containers {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
			got := fmt.Sprintf(verb, c)
			assertNoSecret(t, got)
			if _, isValue := c.(reflect.Value); !isValue && verb != "%x" {
				assert.Contains(t, got, formatWant, "%T %s", c, verb)
			}
		}
	}

	// One secret, another tolerance.
	one, err := NewVerifier(formatSecrets[:1], WithTolerance(90e9))
	require.NoError(t, err)
	assert.Equal(t, "webhook.Verifier(1 secret, tolerance 1m30s)", fmt.Sprintf("%+v", one))
	assertNoSecret(t, fmt.Sprintf("%+v %#v", one, reflect.ValueOf(one).Elem()))
}

// The handler Middleware returns holds the Verifier; printing it shows an
// address, not the secrets.
func TestMiddlewareHandlerFormatHidesSecrets(t *testing.T) {
	t.Parallel()
	h := Middleware(newFormatVerifier(t), WithIdempotency(NewMemoryStore(MemoryStoreOptions{})))(&recordingHandler{})
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		assertNoSecret(t, fmt.Sprintf(verb, h))
	}
}

func TestVerifierNilAndZeroFormat(t *testing.T) {
	t.Parallel()
	var v *Verifier
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d"} {
		assert.Equal(t, "<nil>", fmt.Sprintf(verb, v), verb)
	}
	assert.Equal(t, "<nil>", v.String())
	var lv slog.Value
	require.NotPanics(t, func() { lv = v.LogValue() })
	assert.Equal(t, "<nil>", lv.String())

	zero := new(Verifier)
	assert.Equal(t, "webhook.Verifier(0 secrets, tolerance 0s)", fmt.Sprint(zero))
	assert.Equal(t, "[secrets=0 tolerance=0s]", zero.LogValue().String())
}

// slog, with either built-in handler, logs a Verifier as its number of
// secrets and tolerance.
func TestVerifierLogValueHidesSecrets(t *testing.T) {
	t.Parallel()
	v := newFormatVerifier(t)
	type holder struct {
		Verifier *Verifier
	}
	log := func(l *slog.Logger) {
		l.Info("webhook receiver", "verifier", v)
		l.Info("webhook receiver", slog.Any("verifier", v))
		l.Info("webhook receiver", slog.Group("receiver", "verifier", v))
		l.With("verifier", v).Info("webhook receiver")
		l.Info("webhook receiver", "holder", holder{v}, "list", []*Verifier{v})
		l.Info("webhook receiver", "nil", (*Verifier)(nil))
	}

	var text bytes.Buffer
	log(slog.New(slog.NewTextHandler(&text, nil)))
	assertNoSecret(t, text.String())
	assert.Contains(t, text.String(), " verifier.secrets=2 verifier.tolerance=5m0s")
	assert.Contains(t, text.String(), " receiver.verifier.secrets=2 receiver.verifier.tolerance=5m0s")
	assert.Contains(t, text.String(), `holder="{Verifier:`+formatWant+`}"`)
	assert.Contains(t, text.String(), " nil=<nil>")

	var js bytes.Buffer
	log(slog.New(slog.NewJSONHandler(&js, nil)))
	assertNoSecret(t, js.String())
	assert.Contains(t, js.String(), `"verifier":{"secrets":2,"tolerance":300000000000}`)
	assert.Contains(t, js.String(), `"receiver":{"verifier":{"secrets":2,"tolerance":300000000000}}`)
	assert.Contains(t, js.String(), `"nil":"<nil>"`)
	assert.Equal(t, 6, strings.Count(js.String(), "\n"), "every record was written")
}
