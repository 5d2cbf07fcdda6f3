package pfccontainer_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// opLog is a pfc.Observer recording operations and attempt routes.
type opLog struct {
	pfc.NopObserver
	mu    sync.Mutex
	lines []string
}

func (o *opLog) add(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, fmt.Sprintf(format, args...))
}

func (o *opLog) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	o.add("start %s", op.Name)
	return ctx
}

func (o *opLog) EndOperation(_ context.Context, op *pfc.Operation) {
	o.add("end %s err=%v", op.Name, op.Err != nil)
}

func (o *opLog) EndAttempt(_ context.Context, a *pfc.Attempt) { o.add("%s %q", a.Method, a.Route) }

// TestObserverSeesCorrectFile: pfccontainer's CorrectFile is one
// operation with its upload, correction and download (no route: the
// output URL the container gives); one that fails is reported with its
// error.
func TestObserverSeesCorrectFile(t *testing.T) {
	t.Parallel()
	obs := &opLog{}
	ts := pfcmock.Start(t, &pfcmock.Options{Unlicensed: true, LogWriter: io.Discard}, pfc.WithObserver(obs))
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, jpegOf(t, 80, 60, 3), 0o644))
	_, err := ts.Client.CorrectFile(context.Background(), src, filepath.Join(dir, "out.jpg"), nil, nil)
	require.NoError(t, err)
	_, err = ts.Client.CorrectFile(context.Background(), filepath.Join(dir, "missing.jpg"), filepath.Join(dir, "out.jpg"), nil, nil)
	require.Error(t, err)

	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, []string{
		"start pfccontainer.CorrectFile",
		`PUT "/pfc"`,
		`GET "/pfc/{imageKey}"`,
		`GET ""`,
		"end pfccontainer.CorrectFile err=false",
		"start pfccontainer.CorrectFile",
		"end pfccontainer.CorrectFile err=true",
	}, obs.lines)
}
