package apierr

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// excerptSecret starts with letters found nowhere else in the tests' text,
// so that any prefix of it of four bytes or more is recognisable.
const excerptSecret = "QZJX-licence-0123456789abcdef"

func redactExcerptSecret(s string) string { return strings.ReplaceAll(s, excerptSecret, "REDACTED") }

// TestExcerptRedactsBeforeCutting places the secret across every cut
// length the module uses, at every straddling offset: no prefix survives.
func TestExcerptRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	for _, max := range ExcerptLengths() {
		for k := 1; k < len(excerptSecret); k++ {
			// The secret's first k bytes fall before the cut.
			s := strings.Repeat("x", max-k) + excerptSecret + " tail"
			got := Excerpt(redactExcerptSecret, s, max)
			require.NotContains(t, got, excerptSecret[:4], "cut %d, %d bytes before it", max, k)
			require.LessOrEqual(t, len(got), max+len("…"))
		}
	}
}

func TestExcerptIsOneLineCutOnARune(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a b c", Excerpt(nil, "  a\n\tb \r\n c  ", 10))
	assert.Equal(t, "plain", Excerpt(nil, "plain", 10))
	got := Excerpt(nil, strings.Repeat("é", 10), 5)
	assert.Equal(t, "éé…", got)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, "…", Excerpt(nil, "abc", 0))
	// Collapsing whitespace may join the parts of a secret: they are
	// redacted once joined.
	spaced := strings.Replace(excerptSecret, "-", "- ", 1)
	redact := func(s string) string { return strings.ReplaceAll(s, spaced, "REDACTED") }
	assert.Equal(t, "REDACTED", Excerpt(redact, strings.Replace(spaced, " ", "\n\n", 1), 200))
}

// TestDecodeErrorQuotesAShortExcerpt: Go's decoder copies a whole
// offending number into its error (a 7 MiB number made a 7 MiB error
// string); DecodeError keeps a short, redacted excerpt of it.
func TestDecodeErrorQuotesAShortExcerpt(t *testing.T) {
	t.Parallel()
	huge := "1" + strings.Repeat("7", 7<<20)
	var out struct {
		Code int `json:"code"`
	}
	raw := json.Unmarshal([]byte(`{"code":`+huge+`}`), &out)
	require.Error(t, raw)
	require.Greater(t, len(raw.Error()), 7<<20, "the decoder's own error quotes everything")

	err := DecodeError(raw, nil)
	assert.LessOrEqual(t, len(err.Error()), MaxQuotedError+len("…"))
	assert.Contains(t, err.Error(), "json: cannot unmarshal number 1777")
	assert.Contains(t, err.Error(), "into Go struct field .code of type int")
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	assert.LessOrEqual(t, len(te.Value), MaxQuotedValue+len("…"))

	// Wrapped (a custom UnmarshalJSON's "%w"), and with a secret.
	wrapped := DecodeError(errors.Join(errors.New("pfc: timestamp "+excerptSecret), raw, io.ErrUnexpectedEOF), redactExcerptSecret)
	assert.LessOrEqual(t, len(wrapped.Error()), MaxQuotedError+len("…"))
	assert.NotContains(t, wrapped.Error(), excerptSecret[:4])
	assert.ErrorIs(t, wrapped, io.ErrUnexpectedEOF)
	assert.NoError(t, DecodeError(nil, nil))
}
