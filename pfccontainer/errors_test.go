package pfccontainer

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

func TestClassifyEveryRow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id       messageID
		status   int
		sentinel error
		class    error
		retry    bool
	}{
		{msgNoContentType, 400, ErrUnsupportedContentType, pfc.ErrBadRequest, false},
		{msgBodyRequest, 503, ErrBodyNotRead, pfc.ErrServer, true},
		{msgTemporaryFileCreate, 503, ErrTemporaryFile, pfc.ErrServer, true},
		{msgTemporaryFileWrite, 503, ErrTemporaryFile, pfc.ErrServer, true},
		{msgNoID, 400, ErrMissingImageKey, pfc.ErrBadRequest, false},
		{msgInvalidID, 400, ErrInvalidImageKey, pfc.ErrBadRequest, false},
		{msgUnknownImageID, 400, ErrUnknownImageKey, pfc.ErrBadRequest, false},
		{msgUnknownPreset, 400, ErrUnknownPreset, pfc.ErrBadRequest, false},
		{msgTemporaryOutputFile, 503, ErrOutputFile, pfc.ErrServer, true},
		{msgTemporaryCloseOutput, 503, ErrOutputFile, pfc.ErrServer, true},
		{msgProcessingPFCError, 503, ErrProcessing, pfc.ErrServer, false},
		{msgUnknownOutputType, 400, ErrUnknownOutputType, pfc.ErrBadRequest, false},
	} {
		t.Run(string(tc.id), func(t *testing.T) {
			t.Parallel()
			cause := &apierr.APIError{StatusCode: tc.status, Code: string(tc.id), Message: "why"}
			e := classify(tc.status, string(tc.id), "why", "", cause)
			require.NotNil(t, e)
			var err error = e
			assert.ErrorIs(t, err, tc.sentinel)
			assert.ErrorIs(t, err, tc.class)
			assert.Equal(t, tc.retry, isRetryable(err))
			assert.Equal(t, tc.retry, rows[tc.id].retryable)
			assert.Equal(t, tc.status, rows[tc.id].status)
			var got *Error
			require.ErrorAs(t, err, &got)
			assert.Equal(t, tc.id, got.MessageID)
			assert.Contains(t, err.Error(), string(tc.id))
			assert.Contains(t, err.Error(), http.StatusText(tc.status))
		})
	}
	assert.Len(t, rows, 12)
}

func TestClassifyUnknownCode(t *testing.T) {
	t.Parallel()
	assert.Nil(t, classify(400, "invalid_parameter", "width: bad", "width", nil))
	assert.False(t, isRetryable(errors.New("other")))
	assert.False(t, rows["nope"].retryable)
}

func TestErrorStringAndUnwrapWithoutCause(t *testing.T) {
	t.Parallel()
	e := &Error{StatusCode: 400, MessageID: msgUnknownPreset, Message: `preset "X" is not uploaded or mounted`, Parameter: "preset"}
	assert.Equal(t, `pfc: 400 Bad Request: unknownPresetMessage: preset "X" is not uploaded or mounted`, e.Error())
	assert.Equal(t, []error{ErrUnknownPreset}, e.Unwrap())
}

// TestErrorIsOneBoundedLine: a container (or a proxy) answering a long,
// multi-line message cannot forge log lines or flood them through
// Error(); the whole message stays in the field.
func TestErrorIsOneBoundedLine(t *testing.T) {
	t.Parallel()
	msg := "engine failed\n{\"level\":\"error\",\"msg\":\"forged\"}\r\n" + strings.Repeat("é", 400)
	e := &Error{Endpoint: epCorrect, StatusCode: 503, MessageID: msgProcessingPFCError, Message: msg, RequestID: "r\n1"}
	s := e.Error()
	assert.NotContains(t, s, "\n")
	assert.NotContains(t, s, "\r")
	assert.LessOrEqual(t, len(s), 320)
	assert.True(t, utf8.ValidString(s))
	assert.True(t, strings.HasSuffix(s, "… (request id r 1)"), s)
	assert.Equal(t, msg, e.Message)
}

// TestDownloadErrorsNameTheFileOnOneLine: the file name comes from the
// container's corrected_url; an escaped newline in it does not reach the
// error text as one.
func TestDownloadErrorsNameTheFileOnOneLine(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	c2, err := NewClient(pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: mt}), pfc.WithMaxDownloadSize(8))
	require.NoError(t, err)
	const u = "http://cdn.test/output/a%0Aforged%0D.png"
	mt.RegisterResponder(http.MethodGet, u, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("\x89PNG\r\n\x1a\n-and-more")), ContentLength: 30}, nil
	})
	_, err = c.Download(t.Context(), &Correction{CorrectedURL: u}, io.Discard)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\n")
	_, err = c2.Download(t.Context(), &Correction{CorrectedURL: u}, io.Discard)
	var tl *pfc.DownloadTooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, "a forged .png", tl.Name)
	assert.NotContains(t, err.Error(), "\n")
}

// isRetryable reports whether err is an *Error whose condition is
// transient.
func isRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}
