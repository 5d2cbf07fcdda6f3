package apierr

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzFromResponse feeds arbitrary error responses (content type, body,
// request id) to FromResponse: it must never panic, keep at most MaxBody
// bytes of body, and let no part of a known secret through any field or
// the error text, wherever the secret sits in the body.
func FuzzFromResponse(f *testing.F) {
	const secret = "sk_live_0123456789abcdef"
	f.Add(500, "application/json", `{"message":"x","code":1}`, "rid", uint16(0))
	f.Add(403, "application/xml", `<Error><Code>C</Code><Message>m</Message></Error>`, "", uint16(4090))
	f.Add(422, "", `{"detail":[{"loc":["a",1],"msg":"bad"}]}`, "", uint16(5000))
	f.Add(400, "text/plain; charset=\xff", "\xff\xfe", "\x00", uint16(1))
	f.Add(599, "application/problem+json", `{"error":{"message":{"a":1},"code":[1]}}`, strings.Repeat("é", 300), uint16(3))
	f.Fuzz(func(t *testing.T, status int, contentType, body, requestID string, at uint16) {
		// Put the secret somewhere in the body and the request id.
		pos := int(at) % (len(body) + 1)
		body = body[:pos] + secret + body[pos:]
		redact := func(s string) string { return strings.ReplaceAll(s, secret, "REDACTED") }
		e := FromResponse(response(status, contentType, body, "X-Request-Id", requestID+secret), "GET", "u", 1, redact)
		require.LessOrEqual(t, len(e.Body), MaxBody)
		require.LessOrEqual(t, len(e.RequestID), maxRequestID)
		for _, s := range []string{e.Error(), e.Message, e.Code, e.RequestID, string(e.Body)} {
			require.NotContains(t, s, secret[:8])
		}
		_ = e.Unwrap()
	})
}

func TestFromResponseStatusWithoutText(t *testing.T) {
	t.Parallel()
	e := FromResponse(&http.Response{StatusCode: 999, Header: http.Header{}}, "GET", "u", 1, nil)
	require.Equal(t, "pfc: GET u: 999", e.Error())
	require.NoError(t, e.Unwrap())
}
