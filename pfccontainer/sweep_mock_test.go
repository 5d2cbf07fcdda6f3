package pfccontainer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockTTLSweep: PFC_IMG_CACHE_TTL=30 (minutes); the sweep runs every
// 10 minutes on the fake clock and deletes uploads and outputs once they
// are 30 minutes old, and a file copied into /input by hand 30 minutes
// after a sweep first saw it; the client then meets unknownImageIdMessage
// and a 404 for the corrected file.
func TestMockTTLSweep(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	ts, c, logs := start(t, &pfcmock.Options{Clock: fake, ImageTTL: 30 * time.Minute})
	ctx := t.Context()
	img := jpegOf(t, 64, 48, 13)
	key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := c.GetCorrection(ctx, key, nil)
	require.NoError(t, err)
	direct := c.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir())
	_, err = direct.Put(ctx, "direct.jpg", bytes.NewReader(img))
	require.NoError(t, err)

	ts.Advance(20 * time.Minute) // sweeps at 10 and 20 minutes: all younger than 30
	assert.FileExists(t, filepath.Join(ts.Mock.InputDir(), key))
	assert.FileExists(t, filepath.Join(ts.Mock.OutputDir(), corr.FileName()))
	assert.Empty(t, logs.lines(t, "cleanedUpMessage"))
	var out bytes.Buffer
	_, err = c.Download(ctx, corr, &out)
	require.NoError(t, err)

	ts.Advance(10 * time.Minute) // the sweep at 30 minutes
	for _, p := range []string{
		filepath.Join(ts.Mock.InputDir(), key),
		filepath.Join(ts.Mock.OutputDir(), corr.FileName()),
	} {
		_, err := os.Stat(p)
		assert.ErrorIs(t, err, os.ErrNotExist, p)
	}
	// The hand-placed file was first seen by the sweep at 10 minutes.
	assert.FileExists(t, filepath.Join(ts.Mock.InputDir(), "direct.jpg"))
	ts.Advance(10 * time.Minute)
	_, err = os.Stat(filepath.Join(ts.Mock.InputDir(), "direct.jpg"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	lines := logs.lines(t, "cleanedUpMessage")
	assert.Len(t, lines, 3)
	for _, l := range lines {
		assert.Equal(t, "debug", l["level"])
	}
	assert.Equal(t, "2026-11-23T10:30:00Z", lines[0]["time"], "log times are on the container's clock")
	_, err = c.GetCorrection(ctx, key, nil)
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownImageKey)
	_, err = c.Download(ctx, corr, &out)
	assert.ErrorIs(t, err, pfc.ErrNotFound)

	// A new upload after the sweep lives its own 30 minutes.
	key2, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	ts.Advance(20 * time.Minute)
	assert.FileExists(t, filepath.Join(ts.Mock.InputDir(), key2))
	ts.Advance(10 * time.Minute)
	_, err = os.Stat(filepath.Join(ts.Mock.InputDir(), key2))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
