package main

import (
	"bytes"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestRunBG serves only the background-removal mock with its own licence
// key and a processing delay that holds jobs in processing: the client
// activates with -license-key, a running job's download is the final 102
// (ErrStillProcessing), and removing it works; the key never reaches the
// log.
func TestRunBG(t *testing.T) {
	const key = "bg-key-5f4e3d2c"
	cmd := startCommand(t, 1, "-hosted-addr", "", "-container-addr", "", "-bg-addr", "127.0.0.1:0",
		"-license-key", key, "-bg-processing-delay", "1h", "-data-dir", t.TempDir())
	ctx, cancel, done, stderr := t.Context(), cmd.cancel, cmd.done, cmd.stderr
	require.Equal(t, []string{"bg"}, cmd.names)
	url := cmd.urls[0]

	wrong, err := bgcontainer.NewClient("not-the-key", pfc.WithBaseURL(url))
	require.NoError(t, err)
	defer wrong.CloseIdleConnections()
	st, err := wrong.Authorize(ctx)
	require.NoError(t, err)
	assert.False(t, st.IsLicensed())

	c, err := bgcontainer.NewClient(key, pfc.WithBaseURL(url))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	var img bytes.Buffer
	require.NoError(t, png.Encode(&img, image.NewNRGBA(image.Rect(0, 0, 8, 8))))
	_, err = c.SubmitImage(ctx, bytes.NewReader(img.Bytes()), int64(img.Len()), nil)
	require.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	st, err = c.Authorize(ctx)
	require.NoError(t, err)
	require.True(t, st.IsLicensed())
	job, err := c.SubmitImage(ctx, bytes.NewReader(img.Bytes()), int64(img.Len()), nil)
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = c.DownloadImage(ctx, job.ProcessID, &out)
	require.ErrorIs(t, err, pfc.ErrStillProcessing, "held by -bg-processing-delay")
	_, err = c.WaitImage(ctx, job.ProcessID, &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxWait: 20 * time.Millisecond})
	require.ErrorIs(t, err, pfc.ErrWaitTimeout)
	d, err := c.RemoveImage(ctx, job.ProcessID)
	require.NoError(t, err)
	assert.Contains(t, []bgcontainer.JobStatus{bgcontainer.StatusQueued, bgcontainer.StatusProcessing}, d.PreviousStatus)

	cancel()
	assert.Equal(t, 0, <-done)
	assert.NotContains(t, stderr.String(), key)
	assert.NotContains(t, stderr.String(), "not-the-key")
}
