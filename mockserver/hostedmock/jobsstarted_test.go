package hostedmock_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

// TestJobsStarted: every GET /v2/pfc that starts a job counts, one the
// cache answers included; a refused one does not.
func TestJobsStarted(t *testing.T) {
	t.Parallel()
	ts := hostedmock.Start(t, nil)
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, jpegBytes(t, 90, 60), 0o600))
	for i := range 2 {
		_, err := ts.Client.CorrectFile(t.Context(), src, filepath.Join(dir, "out.jpg"), hosted.NewCorrection(), nil)
		require.NoError(t, err, "run %d", i)
	}
	o := hosted.NewCorrection()
	o.FileKey = "no-such-upload"
	_, err := ts.Client.StartJob(t.Context(), o)
	require.Error(t, err)
	assert.Equal(t, 2, ts.Mock.JobsStarted())
}
