package pfccontainer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockErrorRowsThroughTheClient: the rows the client can meet on the
// wire, each with its sentinel, its retry decision (attempts counted by
// the container's log lines) and its log line at the seed's level.
func TestMockErrorRowsThroughTheClient(t *testing.T) {
	t.Parallel()
	ts, c, logs := start(t, nil)
	ctx := t.Context()
	img := jpegOf(t, 64, 48, 6)
	key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)

	// 400 unknownImageIdMessage: not retried.
	_, err = c.GetCorrection(ctx, "nosuch.jpg", nil)
	assertRow(t, err, "unknownImageIdMessage", pfccontainer.ErrUnknownImageKey, 400, false)
	assertLogged(t, logs, "unknownImageIdMessage", "debug", 400, 1)

	// 400 unknownPresetMessage.
	_, err = c.GetCorrection(ctx, key, pfccontainer.NewCorrection().WithPreset("Cold"))
	assertRow(t, err, "unknownPresetMessage", pfccontainer.ErrUnknownPreset, 400, false)
	assertLogged(t, logs, "unknownPresetMessage", "debug", 400, 1)

	// An ICC profile not in /presets: 400 invalid_parameter, an *APIError
	// naming the parameter.
	_, err = c.GetCorrection(ctx, key, pfccontainer.NewCorrection().WithColorSpace("missing.icc"))
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "outputColorSpace", ae.Parameter)
	assert.ErrorIs(t, err, pfc.ErrBadRequest)

	// 503 processingPFCErrorMessage (a short side under 32 px): final, one
	// attempt although the client retries 503s.
	tiny := jpegOf(t, 40, 20, 7)
	tinyKey, err := c.Upload(ctx, bytes.NewReader(tiny), int64(len(tiny)), "")
	require.NoError(t, err)
	_, err = c.GetCorrection(ctx, tinyKey, nil)
	assertRow(t, err, "processingPFCErrorMessage", pfccontainer.ErrProcessing, 503, false)
	assertLogged(t, logs, "processingPFCErrorMessage", "error", 503, 1)

	// 503 temporaryOutputFileMessage (/output not writable: here not even a
	// directory): retried, 3 attempts, then reported as retryable.
	out := ts.Mock.OutputDir()
	require.NoError(t, os.Rename(out, out+".away"))
	require.NoError(t, os.WriteFile(out, nil, 0o644))
	_, err = c.GetCorrection(ctx, key, nil)
	assertRow(t, err, "temporaryOutputFileMessage", pfccontainer.ErrOutputFile, 503, true)
	assertLogged(t, logs, "temporaryOutputFileMessage", "error", 503, 3)
	require.NoError(t, os.Remove(out))
	require.NoError(t, os.Rename(out+".away", out))

	// 503 temporaryFileCreationMessage on upload (/input not writable).
	in := ts.Mock.InputDir()
	require.NoError(t, os.Rename(in, in+".away"))
	require.NoError(t, os.WriteFile(in, nil, 0o644))
	_, err = c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	assertRow(t, err, "temporaryFileCreationMessage", pfccontainer.ErrTemporaryFile, 503, true)
	assertLogged(t, logs, "temporaryFileCreationMessage", "error", 503, 3)
	require.NoError(t, os.Remove(in))
	require.NoError(t, os.Rename(in+".away", in))

	// Healed: the same calls succeed again.
	_, err = c.GetCorrection(ctx, key, nil)
	require.NoError(t, err)
}

// TestMockRowsTheClientRefusesLocally: the 400 rows a valid client call
// cannot trigger (the client checks the same rules first and sends
// nothing) are still answered by the mock, row by row, to a raw request.
func TestMockRowsTheClientRefusesLocally(t *testing.T) {
	t.Parallel()
	ts, c, logs := start(t, nil)
	ctx := t.Context()

	_, err := c.GetCorrection(ctx, "", nil)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = c.GetCorrection(ctx, "../sdk_license/x.lic", nil)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = c.GetCorrection(ctx, "k.jpg", &pfccontainer.CorrectionOptions{OutputType: "gif"})
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = c.Upload(ctx, strings.NewReader("GIF89a..."), 9, "")
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Empty(t, logs.lines(t, "noIdMessage"), "nothing was sent")

	hc := ts.Server.Client()
	for _, tc := range []struct {
		method, path, ct, id, level string
		status                      int
	}{
		{http.MethodGet, "/pfc/", "", "noIdMessage", "debug", 400},
		{http.MethodGet, "/pfc/..%2Fsdk_license", "", "invalidIdMessage", "debug", 400},
		{http.MethodGet, "/pfc/" + strings.Repeat("k", 300), "", "invalidIdMessage", "debug", 400},
		{http.MethodGet, "/pfc/a%01b.jpg", "", "invalidIdMessage", "debug", 400},
		{http.MethodGet, "/pfc/x.jpg?outputType=gif", "", "unknownOutputTypeMessage", "debug", 400},
		{http.MethodGet, "/pfc/x.jpg?outputQuality=39", "", "invalidParameterMessage", "debug", 400},
		{http.MethodGet, "/pfc/x.jpg?width=abc", "", "invalidParameterMessage", "debug", 400},
		{http.MethodPut, "/pfc", "image/gif", "noContentTypeRequestMessage", "debug", 400},
	} {
		req, err := http.NewRequestWithContext(ctx, tc.method, ts.URL+tc.path, strings.NewReader("x"))
		require.NoError(t, err)
		if tc.ct != "" {
			req.Header.Set("Content-Type", tc.ct)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		var body struct {
			Status int
			Code   string
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, tc.path)
		if tc.id != "invalidParameterMessage" {
			assert.Equal(t, tc.id, body.Code, tc.path)
		}
		line := logs.lines(t, tc.id)
		require.NotEmpty(t, line, tc.id)
		assert.Equal(t, tc.level, line[len(line)-1]["level"], tc.id)
	}
}

// TestMockUnlicensedReturnsTheOriginal: with no valid licence the
// "corrected" file is byte-identical to the upload, and the log says why.
func TestMockUnlicensedReturnsTheOriginal(t *testing.T) {
	t.Parallel()
	_, c, logs := start(t, &pfcmock.Options{Unlicensed: true})
	img := jpegOf(t, 64, 48, 8)
	key, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := c.GetCorrection(t.Context(), key, pfccontainer.NewCorrection().WithWidth(40))
	require.NoError(t, err)
	assert.Equal(t, pfccontainer.SceneUnknown, corr.Scene)
	var out bytes.Buffer
	_, err = c.Download(t.Context(), corr, &out)
	require.NoError(t, err)
	assert.Equal(t, img, out.Bytes())
	assertLogged(t, logs, "licenseMessage", "warning", 0, 1)
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.Contains(t, string(v.Raw), `"valid":false`)
}

func assertRow(t *testing.T, err error, id string, sentinel error, status int, retryable bool) {
	t.Helper()
	require.Error(t, err)
	var e *pfccontainer.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, id, e.MessageID)
	assert.Equal(t, status, e.StatusCode)
	assert.ErrorIs(t, err, sentinel)
	assert.Equal(t, retryable, e.Retryable)
}

// assertLogged checks that id was logged n times at level, with status
// (0: no status attribute).
func assertLogged(t *testing.T, logs *logSink, id, level string, status, n int) {
	t.Helper()
	lines := logs.lines(t, id)
	require.Len(t, lines, n, id)
	for _, l := range lines {
		assert.Equal(t, level, l["level"], id)
		if status != 0 {
			assert.EqualValues(t, status, l["status"], id)
		}
	}
}
