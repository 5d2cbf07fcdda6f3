package pfccontainer

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: httpmock (mockClient: two retries).

// TestErrorRowsOverTheWire: every row of the container's error table, as
// an answer of GET /pfc/{imageKey}, becomes its *Error and is retried or
// not as the package documentation says; answers outside the table stay
// *pfc.APIError.
func TestErrorRowsOverTheWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		sentinel error
		calls    int
	}{
		{"no id", 400, `{"code":"noIdMessage"}`, ErrMissingImageKey, 1},
		{"invalid id", 400, `{"code":"invalidIdMessage"}`, ErrInvalidImageKey, 1},
		{"unknown id", 400, `{"code":"unknownImageIdMessage"}`, ErrUnknownImageKey, 1},
		{"unknown preset", 400, `{"code":"unknownPresetMessage","parameter":"preset"}`, ErrUnknownPreset, 1},
		{"unknown output type", 400, `{"code":"unknownOutputTypeMessage"}`, ErrUnknownOutputType, 1},
		{"content type", 400, `{"code":"noContentTypeRequestMessage"}`, ErrUnsupportedContentType, 1},
		{"engine failed: final", 503, `{"code":"processingPFCErrorMessage","message":"processing failed: short side under 32"}`, ErrProcessing, 1},
		{"engine failed, id only in the message", 503, `{"message":"processingPFCErrorMessage: bad image"}`, ErrProcessing, 1},
		{"output file: retried", 503, `{"code":"temporaryOutputFileMessage","message":"couldn't write image"}`, ErrOutputFile, 3},
		{"close output: retried", 503, `{"code":"temporaryCloseOutputFileMessage"}`, ErrOutputFile, 3},
		{"body: retried", 503, `{"code":"bodyRequestMessage"}`, ErrBodyNotRead, 3},
		{"temporary file: retried", 503, `{"code":"temporaryFileWritingMessage"}`, ErrTemporaryFile, 3},
		{"proxy 503: retried", 503, `<html>restarting</html>`, pfc.ErrServer, 3},
		{"other 400", 400, `{"code":"invalid_parameter","parameter":"width"}`, pfc.ErrBadRequest, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.jpg", func(*http.Request) (*http.Response, error) {
				return jsonResp(tc.status, tc.body), nil
			})
			_, err := c.GetCorrection(t.Context(), "k.jpg", nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.sentinel)
			assert.Equal(t, tc.calls, mt.GetTotalCallCount())
			var ae *pfc.APIError
			require.ErrorAs(t, err, &ae, "the API error stays in the chain")
			assert.Equal(t, tc.status, ae.StatusCode)
			var e *Error
			if tc.sentinel == pfc.ErrServer || tc.sentinel == pfc.ErrBadRequest {
				assert.False(t, errorsAs(err, &e), "not a row of the table")
				return
			}
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.calls > 1, e.Retryable)
			assert.Equal(t, tc.calls > 1, isRetryable(err))
		})
	}
}

// TestUploadRowsOverTheWire: the upload rows on PUT /pfc.
func TestUploadRowsOverTheWire(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", httpmock.NewStringResponder(400, `{"code":"noContentTypeRequestMessage"}`).
		HeaderSet(http.Header{"Content-Type": {"application/json"}}))
	img := testPNG(t)
	_, err := c.Upload(t.Context(), bytesReader(img), int64(len(img)), "")
	assert.ErrorIs(t, err, ErrUnsupportedContentType)
	assert.Equal(t, 1, mt.GetTotalCallCount())
}
