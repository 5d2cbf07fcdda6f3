package bgcontainer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// flowLog is a pfc.Observer recording operations, attempt routes and
// job updates as lines.
type flowLog struct {
	pfc.NopObserver
	mu    sync.Mutex
	lines []string
	times []bool // per terminal job update: had a processing time
}

func (f *flowLog) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, fmt.Sprintf(format, args...))
}

func (f *flowLog) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	f.add("start %s", op.Name)
	return ctx
}

func (f *flowLog) EndOperation(_ context.Context, op *pfc.Operation) {
	f.add("end %s err=%v", op.Name, op.Err != nil)
}

func (f *flowLog) EndAttempt(_ context.Context, a *pfc.Attempt) {
	f.add("%s %s", a.Method, a.Route)
}

func (f *flowLog) JobUpdate(_ context.Context, j *pfc.JobUpdate) {
	f.add("job %s %s submitted=%v terminal=%v", j.API, j.Status, j.Submitted, j.Terminal)
	if j.Terminal {
		f.mu.Lock()
		f.times = append(f.times, j.ProcessingTime > 0)
		f.mu.Unlock()
	}
}

// TestObserverSeesRemoveBackgroundFile: the flow is one operation named
// bgcontainer.RemoveBackgroundFile (RemoveBackground, which it calls, is
// not reported again), its requests are named by route template (the
// license key never shows), and the job's submission and completion are
// reported with the processing time the container sends.
func TestObserverSeesRemoveBackgroundFile(t *testing.T) {
	t.Parallel()
	obs := &flowLog{}
	ts := bgmock.Start(t, &bgmock.Options{Activated: true}, pfc.WithObserver(obs))
	in := filepath.Join(t.TempDir(), "a.jpg")
	require.NoError(t, os.WriteFile(in, bulkJPEG(t, 1), 0o644))
	_, err := ts.Client.RemoveBackgroundFile(context.Background(), in, in+".png", nil, nil)
	require.NoError(t, err)

	obs.mu.Lock()
	defer obs.mu.Unlock()
	var got []string
	for _, l := range obs.lines {
		if strings.HasPrefix(l, "job bgcontainer queued") || strings.HasPrefix(l, "job bgcontainer processing submitted=false") ||
			l == "GET /CheckImage/{process_id}" && len(got) > 0 && got[len(got)-1] == l {
			continue // as many as the mock's pace gives
		}
		got = append(got, l)
	}
	assert.Equal(t, []string{
		"start bgcontainer.RemoveBackgroundFile",
		"POST /SubmitImage",
		"job bgcontainer processing submitted=true terminal=false",
		"GET /CheckImage/{process_id}",
		"job bgcontainer completed submitted=false terminal=true",
		"GET /DownloadImage/{process_id}",
		"DELETE /RemoveImage/{process_id}",
		"end bgcontainer.RemoveBackgroundFile err=false",
	}, got)
	assert.Equal(t, []bool{true}, obs.times, "the processing time the container reports")
}
