package pfccontainer_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockLogLevels: PFC_LOG_LEVEL filters the JSON log lines by the
// level of each message id, and an unknown value logs a warning and falls
// back to info.
func TestMockLogLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level                    string
		debug, info, warn, error bool
	}{
		{"debug", true, true, true, true},
		{"INFO", false, true, true, true},
		{"Warning", false, false, true, true},
		{"error", false, false, false, true},
		{"verbose", false, true, true, true}, // unknown: info
	} {
		t.Run(tc.level, func(t *testing.T) {
			t.Parallel()
			_, c, logs := start(t, &pfcmock.Options{LogLevel: tc.level, Unlicensed: true})
			ctx := t.Context()
			_, err := c.GetCorrection(ctx, "nosuch.jpg", nil) // debug: unknownImageIdMessage
			require.Error(t, err)
			img := jpegOf(t, 64, 48, 10)
			key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
			require.NoError(t, err)
			_, err = c.GetCorrection(ctx, key, nil) // warning: licenseMessage
			require.NoError(t, err)
			small := jpegOf(t, 40, 20, 11)
			_, err = c.GetCorrection(ctx, mustUpload(t, c, small), nil) // unlicensed: a copy, no engine error
			require.NoError(t, err)

			assert.Equal(t, tc.debug, len(logs.lines(t, "unknownImageIdMessage")) > 0, "debug")
			assert.Equal(t, tc.info, len(logs.lines(t, "startedMessage")) > 0, "info")
			assert.Equal(t, tc.warn, len(logs.lines(t, "licenseMessage")) > 0, "warning")
			unknown := logs.lines(t, "unknownLogLevelMessage")
			if tc.level == "verbose" {
				require.Len(t, unknown, 1)
				assert.Equal(t, "warning", unknown[0]["level"])
				assert.Equal(t, "verbose", unknown[0]["value"])
			} else {
				assert.Empty(t, unknown)
			}
			for _, l := range logs.lines(t, "") {
				assert.Contains(t, []string{"debug", "info", "warning", "error"}, l["level"])
				assert.NotEmpty(t, l["msg"])
				assert.NotEmpty(t, l["time"])
			}
		})
	}
}

// TestMockErrorLevelLine: an error row is logged at error level even when
// only errors are kept.
func TestMockErrorLevelLine(t *testing.T) {
	t.Parallel()
	_, c, logs := start(t, &pfcmock.Options{LogLevel: "error"})
	_, err := c.GetCorrection(t.Context(), mustUpload(t, c, jpegOf(t, 40, 20, 12)), nil)
	assert.ErrorIs(t, err, pfccontainer.ErrProcessing)
	all := logs.lines(t, "")
	require.Len(t, all, 1)
	assert.Equal(t, "processingPFCErrorMessage", all[0]["msg"])
	assert.Equal(t, "error", all[0]["level"])
	assert.EqualValues(t, 503, all[0]["status"])
	assert.NotEmpty(t, all[0]["imageKey"])
}

func mustUpload(t *testing.T, c *pfccontainer.Client, img []byte) string {
	t.Helper()
	key, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	return key
}
