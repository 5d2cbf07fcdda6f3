package pfccontainer_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/observe/observetest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestObserverSeesCorrectFile: pfccontainer's CorrectFile is one
// operation with its upload, correction and download (no route: the
// output URL the container gives); one that fails is reported with its
// error.
func TestObserverSeesCorrectFile(t *testing.T) {
	t.Parallel()
	obs := &observetest.Recorder{}
	ts := pfcmock.Start(t, &pfcmock.Options{Unlicensed: true, LogWriter: io.Discard}, pfc.WithObserver(obs))
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, jpegOf(t, 80, 60, 3), 0o644))
	_, err := ts.Client.CorrectFile(context.Background(), src, filepath.Join(dir, "out.jpg"), nil, nil)
	require.NoError(t, err)
	_, err = ts.Client.CorrectFile(context.Background(), filepath.Join(dir, "missing.jpg"), filepath.Join(dir, "out.jpg"), nil, nil)
	require.Error(t, err)

	assert.Equal(t, []string{
		"start flow pfccontainer.CorrectFile",
		`attempt PUT "/pfc" 200 #1`,
		`attempt GET "/pfc/{imageKey}" 200 #1`,
		`attempt GET "" 200 #1`,
		"end flow pfccontainer.CorrectFile err=false",
		"start flow pfccontainer.CorrectFile",
		"end flow pfccontainer.CorrectFile err=true",
	}, obs.Lines())
}
