package bgcontainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// awkwardKey needs escaping as a path segment.
const awkwardKey = "LIC 9f/8e?7d#c6%"

func TestAuthorizeSendsTheEscapedKeyAsPathSegment(t *testing.T) {
	t.Parallel()
	f := newFixture(t, awkwardKey)
	f.on(t, http.MethodGet, "/Authorize/LIC%209f%2F8e%3F7d%23c6%25", func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, "/Authorize/LIC 9f/8e?7d#c6%", r.URL.Path)
		assert.Empty(t, r.URL.RawQuery)
		return httpmock.NewJsonResponse(200, map[string]string{
			"status": "Licensed", "message": "License activated successfully",
			"licensed org": "Acme Photo", "expiration date": "2027-11",
		})
	})
	st, err := f.c.Authorize(context.Background())
	require.NoError(t, err)
	assert.True(t, st.IsLicensed())
	assert.Equal(t, "Acme Photo", st.Organization)
	assert.True(t, st.ExpirationIsMonth)
	assert.Equal(t, "2027-11", st.ExpirationRaw)
	assert.Equal(t, 1, f.calls(http.MethodGet, "/Authorize/LIC%209f%2F8e%3F7d%23c6%25"))
	f.noSecret(t, awkwardKey)
	f.noSecret(t, "LIC%209f%2F8e%3F7d%23c6%25")
	assert.Contains(t, f.logs.String(), "/Authorize/REDACTED")
}

func TestAuthorizeUnlicensedIsNotAnError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodGet, "/Authorize/"+secretKey, 200, map[string]string{"status": "Unlicensed", "message": "Invalid license key"})
	st, err := f.c.Authorize(context.Background())
	require.NoError(t, err)
	assert.False(t, st.IsLicensed())
	assert.Equal(t, Unlicensed, st.Status)
}

// TestAuthorizeAndStatusErrors covers the seed's rows for /Authorize (400,
// 500) and /Status (500); the server echoes the key, which must not reach
// the error or the logs.
func TestAuthorizeAndStatusErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		path   string
		status int
		call   func(*Client) error
		want   error
		tries  int
	}{
		{"authorize 400", "/Authorize/" + secretKey, 400, func(c *Client) error { _, err := c.Authorize(context.Background()); return err }, pfc.ErrBadRequest, 1},
		{"authorize 500", "/Authorize/" + secretKey, 500, func(c *Client) error { _, err := c.Authorize(context.Background()); return err }, pfc.ErrServer, 3},
		{"status 500", "/Status", 500, func(c *Client) error { _, err := c.Status(context.Background()); return err }, pfc.ErrServer, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			f.json(t, http.MethodGet, tt.path, tt.status, errorBody(tt.status, "x", "bad key "+secretKey, "license_key"))
			err := tt.call(f.c)
			require.ErrorIs(t, err, tt.want)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.status, ae.StatusCode)
			assert.Contains(t, ae.Message, "bad key REDACTED")
			assert.Equal(t, "license_key", ae.Parameter)
			assert.Equal(t, tt.tries, f.calls(http.MethodGet, tt.path), "retries of a %d", tt.status)
			f.noSecret(t, secretKey, err.Error())
		})
	}
}

func TestAuthorizeWithoutKeySendsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	_, err := f.c.Authorize(context.Background())
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "license_key", ve.Errors[0].Field)
	assert.Zero(t, f.mt.GetTotalCallCount())
}

func TestStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodGet, "/Status", 200, map[string]string{
		"status": "Licensed", "message": "License is valid", "licensed org": "Acme",
		"expiration date": "2027-11-30T23:59:59Z", "model_version": "372.0",
	})
	st, err := f.c.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "372.0", st.ModelVersion)
	assert.False(t, st.ExpirationIsMonth)
	assert.Equal(t, 2027, st.Expiration.Year())
}

func TestStatusInvalidResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.on(t, http.MethodGet, "/Status", httpmock.NewStringResponder(200, `<html>`+secretKey+`</html>`))
	_, err := f.c.Status(context.Background())
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	f.noSecret(t, secretKey, err.Error())
}

func TestNilContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	var nilCtx context.Context
	_, err1 := f.c.Status(nilCtx)
	_, err2 := f.c.WaitImage(nilCtx, jobID, nil)
	_, err3 := f.c.RemoveBackground(nilCtx, nil, 0, nil, nil, nil)
	_, err4 := f.c.DownloadImage(nilCtx, jobID, io.Discard)
	for _, err := range []error{err1, err2, err3, err4} {
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve, "a nil context is a typed, matchable error")
		assert.Equal(t, []string{"ctx"}, ve.Fields())
		assert.True(t, errors.Is(err, pfc.ErrInvalidParameter))
	}
	assert.Zero(t, f.mt.GetTotalCallCount())
}

func TestNewClientValidation(t *testing.T) {
	t.Parallel()
	_, err := NewClient("bad\nkey"+secretKey, WithPolling(pfc.WaitOptions{MinDelay: -1}))
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, e := range ve.Errors {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"licenseKey", "BaseURL", "MinDelay"}, fields)
	assert.NotContains(t, err.Error(), secretKey)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

// TestErrorBodyEchoingTheKeyEscaped: the container's framework echoes the
// key JSON-escaped (Python's ensure_ascii: \u00e9); neither the error's
// text, its fields nor the raw body copy keep it.
func TestErrorBodyEchoingTheKeyEscaped(t *testing.T) {
	t.Parallel()
	key := `Lic<é>&"9f8e7d"`
	f := newFixture(t, key)
	pyEscaped := `Lic<\u00e9>&\"9f8e7d\"`
	goEscaped := `Lic\u003cé\u003e\u0026\"9f8e7d\"`
	f.on(t, http.MethodGet, "/Authorize/"+url.PathEscape(key), httpmock.NewStringResponder(400,
		`{"detail":"invalid key `+pyEscaped+`","code":"`+goEscaped+`"}`))
	_, err := f.c.Authorize(context.Background())
	require.ErrorIs(t, err, pfc.ErrBadRequest)
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	for _, s := range []string{err.Error(), string(ae.Body), ae.Message, ae.Code, fmt.Sprintf("%+v", ae)} {
		for _, form := range []string{key, pyEscaped, goEscaped, "9f8e7d"} {
			assert.NotContains(t, s, form)
		}
	}
	assert.Contains(t, string(ae.Body), "REDACTED")
}
