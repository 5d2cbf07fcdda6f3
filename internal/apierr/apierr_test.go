package apierr

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIErrorUnwrapSentinels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status int
		want   error
	}{
		{400, ErrBadRequest}, {422, ErrBadRequest},
		{401, ErrUnauthorized}, {403, ErrUnauthorized},
		{404, ErrNotFound}, {410, ErrNotFound},
		{413, ErrTooLarge},
		{429, ErrRateLimited},
		{500, ErrServer}, {501, ErrServer}, {503, ErrServer}, {599, ErrServer},
		{102, ErrStillProcessing},
		{302, nil}, {408, nil}, {409, nil}, {418, nil},
	}
	sentinels := []error{ErrBadRequest, ErrUnauthorized, ErrNotFound, ErrTooLarge, ErrRateLimited, ErrServer, ErrInvalidParameter, ErrStillProcessing}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			var err error = &APIError{StatusCode: tc.status}
			assert.Equal(t, tc.want, errors.Unwrap(err))
			for _, s := range sentinels {
				assert.Equal(t, s == tc.want, errors.Is(err, s), "errors.Is(%v)", s)
			}
			var ae *APIError
			require.ErrorAs(t, fmt.Errorf("wrapped: %w", err), &ae)
			assert.Equal(t, tc.status, ae.StatusCode)
		})
	}
}

func TestAPIErrorString(t *testing.T) {
	t.Parallel()
	e := &APIError{
		StatusCode: 400, Method: "GET", URL: "https://api.example.test/v2/pfc?fileKey=k",
		Code: "42", Message: "bad\n  fileKey", RequestID: "req-1", Attempts: 1,
	}
	assert.Equal(t, "pfc: GET https://api.example.test/v2/pfc?fileKey=k: 400 Bad Request: bad fileKey (code 42, request id req-1)", e.Error())

	e = &APIError{StatusCode: 503, Method: "PUT", URL: "https://h/x", Attempts: 5}
	assert.Equal(t, "pfc: PUT https://h/x: 503 Service Unavailable (5 attempts)", e.Error())

	e = &APIError{StatusCode: 599}
	assert.Equal(t, "pfc: 599", e.Error())

	long := strings.Repeat("é", 500)
	e = &APIError{StatusCode: 500, Method: "GET", URL: "u", Message: long}
	msg := e.Error()
	assert.Less(t, len([]rune(msg)), 260)
	assert.True(t, strings.HasSuffix(msg, "…"))
}

func TestValidationError(t *testing.T) {
	t.Parallel()
	var errs FieldErrors
	require.NoError(t, errs.Err())
	require.Nil(t, errs.Err(), "Err must return an untyped nil")

	errs.Add("width", "must be 32..10000, got %d", 5)
	errs.Add("bgColor", "must be #rrggbb or a CSS colour name")
	errs.Add("width", "second problem")
	err := errs.Err()
	require.Error(t, err)
	assert.Equal(t, "pfc: invalid parameters: width: must be 32..10000, got 5; bgColor: must be #rrggbb or a CSS colour name; width: second problem", err.Error())
	assert.ErrorIs(t, err, ErrInvalidParameter)
	assert.NotErrorIs(t, err, ErrBadRequest)

	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"width", "bgColor"}, ve.Fields())
	assert.Len(t, ve.Errors, 3)
	assert.Equal(t, "bgColor: must be #rrggbb or a CSS colour name", ve.Errors[1].Error())

	// Err copies: later Adds do not change an error already returned.
	errs.Add("x", "y")
	assert.Len(t, ve.Errors, 3)
}

func response(status int, contentType, body string, hdr ...string) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	return &http.Response{StatusCode: status, Header: h, Body: &trackingBody{Reader: strings.NewReader(body)}}
}

type trackingBody struct {
	io.Reader
	closed bool
}

func (b *trackingBody) Close() error { b.closed = true; return nil }

func TestFromResponseParsesBodies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, ct, body  string
		code, msg       string
		requestIDHeader string
	}{
		{"json message + numeric code", "application/json", `{"message":"fileKey not found","code":1004}`, "1004", "fileKey not found", "X-Request-Id"},
		{"json error string code", "application/json; charset=utf-8", `{"error":"invalid key","code":"E_AUTH"}`, "E_AUTH", "invalid key", "X-Amzn-Requestid"},
		{"json detail without content type", "", ` {"detail":"license_key missing"}`, "", "license_key missing", "X-Correlation-Id"},
		{"json statusText", "application/problem+json", `{"statusText":"Job rejected"}`, "", "Job rejected", "X-Amz-Request-Id"},
		{"nested error object", "application/json", `{"error":{"message":"nope","code":7}}`, "7", "nope", ""},
		{"fastapi detail list", "application/json", `{"detail":[{"loc":["body","file"],"msg":"field required","type":"value_error.missing"}]}`, "", "body.file: field required", ""},
		{"message wins over error", "application/json", `{"error":"Bad Request","message":"width out of range"}`, "", "width out of range", ""},
		{"xml", "application/xml", `<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>bad sig</Message></Error>`, "SignatureDoesNotMatch", "bad sig", ""},
		{"text", "text/plain; charset=utf-8", "upstream timed out\n", "", "upstream timed out", ""},
		{"html ignored", "text/html", "<html><body>502 Bad Gateway</body></html>", "", "", ""},
		{"broken json ignored", "application/json", `{"message":`, "", "", ""},
		{"json array ignored", "application/json", `["x"]`, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.requestIDHeader != "" {
				hdr = []string{tc.requestIDHeader, "rid-9"}
			}
			resp := response(422, tc.ct, tc.body, hdr...)
			e := FromResponse(resp, "GET", "https://h/x", 2, nil)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.msg, e.Message)
			assert.Equal(t, []byte(tc.body), e.Body)
			assert.Equal(t, 422, e.StatusCode)
			assert.Equal(t, 2, e.Attempts)
			if tc.requestIDHeader != "" {
				assert.Equal(t, "rid-9", e.RequestID)
			}
			assert.True(t, resp.Body.(*trackingBody).closed, "body must be closed")
		})
	}
}

func TestFromResponseBoundsAndRedacts(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_0123456789abcdef"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "REDACTED") }

	// The secret straddles the 4 KiB boundary: no prefix of it may survive.
	for _, start := range []int{MaxBody - 10, MaxBody - 1, MaxBody - len(secret), MaxBody, MaxBody - len(secret) - 1} {
		body := strings.Repeat("a", start) + secret + strings.Repeat("b", 10000)
		e := FromResponse(response(500, "text/html", body), "GET", "u", 1, redact)
		assert.LessOrEqual(t, len(e.Body), MaxBody)
		assert.NotContains(t, string(e.Body), "sk_live", "start %d", start)
		assert.NotContains(t, string(e.Body), secret[:3], "start %d", start)
	}

	body := `{"message":"key ` + secret + ` is not valid","code":"` + secret + `"}`
	e := FromResponse(response(401, "application/json", body, "X-Request-Id", secret), "GET", "u", 1, redact)
	assert.Equal(t, "key REDACTED is not valid", e.Message)
	assert.Equal(t, "REDACTED", e.Code)
	assert.Equal(t, "REDACTED", e.RequestID)
	assert.NotContains(t, string(e.Body), secret)
	assert.NotContains(t, e.Error(), secret)
	assert.ErrorIs(t, e, ErrUnauthorized)
}

func TestFromResponseNilBodyAndEmpty(t *testing.T) {
	t.Parallel()
	e := FromResponse(&http.Response{StatusCode: 404, Header: http.Header{}}, "DELETE", "u", 1, nil)
	assert.Nil(t, e.Body)
	assert.Equal(t, "pfc: DELETE u: 404 Not Found", e.Error())

	assert.NotPanics(t, func() { FromResponse(nil, "GET", "u", 1, nil) })

	e = FromResponse(response(404, "", ""), "GET", "u", 1, nil)
	assert.Nil(t, e.Body)
	assert.Empty(t, e.Message)
}

// A hostile or broken server can send a request id of megabytes; the
// APIError keeps a bounded, valid UTF-8 prefix of it, redacted first.
func TestFromResponseBoundsRequestID(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_0123456789abcdef"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "REDACTED") }
	for _, rid := range []string{
		strings.Repeat("r", 1<<20),
		strings.Repeat("é", maxRequestID), // 2 bytes each: the cut falls inside a rune
		strings.Repeat("x", maxRequestID-3) + secret,
	} {
		e := FromResponse(response(502, "", "", "X-Request-Id", rid), "GET", "u", 1, redact)
		assert.LessOrEqual(t, len(e.RequestID), maxRequestID)
		assert.NotEmpty(t, e.RequestID)
		assert.True(t, strings.HasPrefix(redact(rid), e.RequestID))
		assert.True(t, utf8.ValidString(e.RequestID))
		assert.NotContains(t, e.RequestID, secret[:8])
	}
	e := FromResponse(response(502, "", "", "X-Request-Id", "req-1"), "GET", "u", 1, nil)
	assert.Equal(t, "req-1", e.RequestID)
}

func TestFromResponseKeepsParameter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, want string
	}{
		{"mock shape", `{"status":400,"code":"invalid_parameter","message":"width: must be between 32 and 10000","parameter":"width"}`, "width"},
		{"no parameter", `{"status":400,"code":"invalid_parameter","message":"bad"}`, ""},
		{"redacted", `{"message":"bad","parameter":"s3cr3t-key"}`, "REDACTED"},
		{"not a string", `{"message":"bad","parameter":{"x":1}}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(tc.body))}
			e := FromResponse(resp, "GET", "u", 1, strings.NewReplacer("s3cr3t-key", "REDACTED").Replace)
			assert.Equal(t, tc.want, e.Parameter)
			if tc.want != "" {
				assert.Contains(t, e.Error(), "parameter "+tc.want)
			}
		})
	}
}
