package bgcontainer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/observe/observetest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestObserverSeesRemoveBackgroundFile: the flow is one operation named
// bgcontainer.RemoveBackgroundFile (RemoveBackground, which it calls, is
// not reported again), its requests are named by route template (the
// license key never shows), and the job's submission and completion are
// reported with the processing time the container sends.
func TestObserverSeesRemoveBackgroundFile(t *testing.T) {
	t.Parallel()
	obs := &observetest.Recorder{}
	ts := bgmock.Start(t, &bgmock.Options{Activated: true}, pfc.WithObserver(obs))
	in := filepath.Join(t.TempDir(), "a.jpg")
	require.NoError(t, os.WriteFile(in, bulkJPEG(t, 1), 0o644))
	_, err := ts.Client.RemoveBackgroundFile(context.Background(), in, in+".png", nil, nil)
	require.NoError(t, err)

	const poll = `attempt GET "/CheckImage/{process_id}" 200 #1` // as many as the mock's pace gives
	assert.Equal(t, []string{
		"start flow bgcontainer.RemoveBackgroundFile",
		`attempt POST "/SubmitImage" 200 #1`,
		"job bgcontainer processing<- submitted=true terminal=false failed=false",
		poll,
		"job bgcontainer completed<- submitted=false terminal=true failed=false",
		`attempt GET "/DownloadImage/{process_id}" 200 #1`,
		`attempt DELETE "/RemoveImage/{process_id}" 200 #1`,
		"end flow bgcontainer.RemoveBackgroundFile err=false",
	}, observetest.Steady(obs.Lines(), poll))
	assert.Equal(t, []bool{true}, obs.Timed(), "the processing time the container reports")
}
