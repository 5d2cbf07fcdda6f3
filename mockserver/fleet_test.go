package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

// The replicas of a fleet are independent: each is activated on its own,
// holds only its own jobs and has its own data directory.
func TestStartBGContainersIndependent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 3, nil)
	require.Len(t, fleet, 3)
	dirs := map[string]bool{}
	for _, s := range fleet {
		dirs[s.Mock.DataDir()] = true
	}
	assert.Len(t, dirs, 3)
	_, err := fleet[0].Client.Authorize(ctx)
	require.NoError(t, err)
	var img bytes.Buffer
	require.NoError(t, png.Encode(&img, image.NewNRGBA(image.Rect(0, 0, 8, 8))))
	job, err := fleet[0].Client.SubmitImage(ctx, bytes.NewReader(img.Bytes()), int64(img.Len()), nil)
	require.NoError(t, err)
	for _, s := range fleet[1:] {
		st, err := s.Client.Status(ctx)
		require.NoError(t, err)
		assert.False(t, st.IsLicensed())
		_, err = s.Client.Authorize(ctx)
		require.NoError(t, err)
		_, err = s.Client.CheckImage(ctx, job.ProcessID)
		assert.ErrorIs(t, err, bgcontainer.ErrJobNotFound)
	}
}

// Each correction replica has its own mount tree and tags its log lines.
func TestStartPFCContainersTagsLogs(t *testing.T) {
	t.Parallel()
	var logs streamtest.SyncBuffer
	fleet := pfcmock.StartFleet(t, 2, &pfcmock.Options{LogWriter: &logs, Root: t.TempDir()})
	require.NotEqual(t, fleet[0].Mock.Root(), fleet[1].Mock.Root())
	assert.True(t, strings.HasSuffix(fleet[1].Mock.Root(), "replica-1"))
	for _, s := range fleet {
		_, err := s.Client.Version(context.Background())
		require.NoError(t, err)
	}
	seen := map[float64]bool{}
	for _, line := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			if r, ok := m["replica"].(float64); ok {
				seen[r] = true
			}
		}
	}
	assert.Equal(t, map[float64]bool{0: true, 1: true}, seen)
}
