package serverid

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	const key = "sk-live-0123456789"
	redact := func(s string) string { return strings.ReplaceAll(s, key, "REDACTED") }
	for _, id := range []string{"j1", "0123456789abcdef01234567", "A_b.c-9", "k.jpg", "a..b", strings.Repeat("x", MaxLength)} {
		assert.Empty(t, Check(id, redact), id)
	}
	for id, want := range map[string]string{
		"":                               "is missing",
		key:                              "credential",
		"job-" + key + "-1":              "credential",
		strings.Repeat("x", MaxLength+1): "bytes long",
		".":                              "not 1 to 128",
		"..":                             "not 1 to 128",
		".hidden":                        "not 1 to 128",
		"a b":                            "not 1 to 128",
		"a/b":                            "not 1 to 128",
		"a%2Fb":                          "not 1 to 128",
		"ключ":                           "not 1 to 128",
		"caf\xe9":                        "not 1 to 128",
		"a\x00b":                         "not 1 to 128",
	} {
		got := Check(id, redact)
		assert.Contains(t, got, want, "%q", id)
		assert.NotContains(t, got, key, "the reason never quotes the id")
	}
	assert.Empty(t, Check(key, nil), "no redactor: shape only")
}
