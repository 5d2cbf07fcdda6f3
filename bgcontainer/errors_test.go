package bgcontainer

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestAPIErrorClassification covers every row of the seed's error table
// and the not-activated choice.
func TestAPIErrorClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ep     endpoint
		status int
		code   string
		kind   error // nil: class only
		class  error
	}{
		{epAuthorize, 400, "missing_parameter", nil, pfc.ErrBadRequest},
		{epAuthorize, 500, "", nil, pfc.ErrServer},
		{epStatus, 500, "", nil, pfc.ErrServer},
		{epSubmitImage, 404, "invalid_file", ErrInvalidFile, pfc.ErrNotFound},
		{epSubmitImage, 422, "", ErrMissingFile, pfc.ErrBadRequest},
		{epSubmitImage, 500, "", nil, pfc.ErrServer},
		{epSubmitImage, 400, "invalid_parameter", nil, pfc.ErrBadRequest},
		{epSubmitImage, 403, "not_activated", ErrNotActivated, pfc.ErrUnauthorized},
		{epCheckImage, 400, "", ErrInvalidProcessID, pfc.ErrBadRequest},
		{epCheckImage, 404, "", ErrJobNotFound, pfc.ErrNotFound},
		{epCheckImage, 500, "", nil, pfc.ErrServer},
		{epCheckImage, 401, "", ErrNotActivated, pfc.ErrUnauthorized},
		{epDownloadImage, 102, "", pfc.ErrStillProcessing, nil},
		{epDownloadImage, 400, "", ErrInvalidProcessID, pfc.ErrBadRequest},
		{epDownloadImage, 404, "", ErrJobNotFound, pfc.ErrNotFound},
		{epDownloadImage, 500, "internal_error", pfc.ErrJobFailed, pfc.ErrServer},
		{epDownloadImage, 403, "", ErrNotActivated, pfc.ErrUnauthorized},
		{epRemoveImage, 400, "", ErrInvalidProcessID, pfc.ErrBadRequest},
		{epRemoveImage, 404, "", ErrJobNotFound, pfc.ErrNotFound},
		{epRemoveImage, 500, "", nil, pfc.ErrServer},
		{epStatus, 400, "NOT_ACTIVATED", ErrNotActivated, pfc.ErrBadRequest},
		{epStatus, 403, "", nil, pfc.ErrUnauthorized}, // not an image endpoint
	}
	all := []error{ErrNotActivated, ErrInvalidProcessID, ErrJobNotFound, ErrInvalidFile, ErrMissingFile,
		pfc.ErrJobFailed, pfc.ErrStillProcessing}
	for _, tt := range tests {
		t.Run(string(tt.ep)+"/"+http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			err := error(newError(tt.ep, tt.status, tt.code, "msg", "", "", "", nil))
			for _, s := range all {
				assert.Equal(t, s == tt.kind, errors.Is(err, s), "%v", s)
			}
			if tt.class != nil {
				assert.ErrorIs(t, err, tt.class)
			}
		})
	}
}

func TestErrorWrapsTheAPIError(t *testing.T) {
	t.Parallel()
	cause := &pfc.APIError{StatusCode: 404, Method: "GET", URL: "http://c/CheckImage/x"}
	err := error(newError(epCheckImage, 404, "not_found", "process_id x not found", "process_id",
		"123e4567-e89b-12d3-a456-426614174000", "req-1", cause))
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Same(t, cause, ae)
	var be *Error
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "process_id", be.Parameter)
	assert.Equal(t, "pfc: CheckImage 123e4567-e89b-12d3-a456-426614174000: 404 Not Found: "+
		"process_id x not found (parameter process_id, code not_found, request id req-1)", err.Error())
	assert.ErrorIs(t, err, ErrJobNotFound)
	assert.ErrorIs(t, err, pfc.ErrNotFound)
}

func TestWrapErr(t *testing.T) {
	t.Parallel()
	assert.NoError(t, wrapErr(epStatus, "", nil))
	plain := errors.New("dial tcp: connection refused")
	assert.Same(t, plain, wrapErr(epStatus, "", plain))
	cause := &apierr.APIError{StatusCode: 403, Code: "not_activated", Message: "activate first", RequestID: "r", Attempts: 1}
	err := wrapErr(epSubmitImage, "", fmt.Errorf("attempt: %w", cause))
	var be *Error
	require.ErrorAs(t, err, &be)
	assert.Equal(t, string(epSubmitImage), be.Endpoint)
	assert.Equal(t, "activate first", be.Message)
	assert.Equal(t, "r", be.RequestID)
	assert.ErrorIs(t, err, ErrNotActivated)
	assert.ErrorIs(t, err, pfc.ErrUnauthorized)
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, pfc.APIError(*cause), *ae, "the public copy of the transport's error")
}

func TestAPIErrorMessageIsOneLine(t *testing.T) {
	t.Parallel()
	err := newError(epStatus, 500, "", "line one\n\tline two "+strings.Repeat("é", 300), "", "", "", nil)
	msg := err.Error()
	assert.NotContains(t, msg, "\n")
	assert.Contains(t, msg, "line one line two")
	assert.True(t, strings.HasSuffix(msg, "…"), msg)
	assert.Less(t, len(msg), 260)
}

func TestValidateProcessID(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"123e4567-e89b-42d3-a456-426614174000", "123E4567-E89B-42D3-A456-426614174000"} {
		assert.NoError(t, ValidateProcessID(ok), ok)
	}
	for _, bad := range []string{"", "123", "123e4567e89b42d3a456426614174000", "123e4567-e89b-42d3-a456-42661417400z",
		"{123e4567-e89b-42d3-a456-426614174000}", "../../Status", "123e4567-e89b-42d3-a456-4266141740000"} {
		err := ValidateProcessID(bad)
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, ErrInvalidProcessID)
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Len(t, ve.Errors, 1)
		assert.Equal(t, "process_id", ve.Errors[0].Field)
		assert.Contains(t, err.Error(), "process_id: ")
	}
}

func TestValidateLicenseKeyNeverQuotesIt(t *testing.T) {
	t.Parallel()
	require.NoError(t, validateLicenseKey("ABCD-1234/ef gh"))
	for _, bad := range []string{"", "   ", "secret\nkey", "secret\x7fkey"} {
		err := validateLicenseKey(bad)
		require.Error(t, err)
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
		assert.NotErrorIs(t, err, ErrInvalidProcessID)
		assert.Contains(t, err.Error(), "license_key: ")
		assert.NotContains(t, err.Error(), "secret")
	}
}

func TestResponseError(t *testing.T) {
	t.Parallel()
	err := error(&pfc.ResponseError{Endpoint: string(epStatus), Field: "licensed org", Reason: "expected a string, got a number"})
	assert.ErrorIs(t, err, pfc.ErrInvalidResponse)
	assert.Equal(t, `pfc: Status: invalid response: field "licensed org": expected a string, got a number`, err.Error())
}
