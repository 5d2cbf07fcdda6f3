package hosted_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/observe/observetest"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestObserverSeesCorrectFile: a CorrectFile against the mock reports its
// flow, each attempt by route template (the pre-signed upload and
// download with no route and no header to propagate a trace context in),
// and the job's submission and completion, in order.
func TestObserverSeesCorrectFile(t *testing.T) {
	t.Parallel()
	rec := &observetest.Recorder{}
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithObserver(rec))
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, smallJPEG(t, 1, 40, 40), 0o644))
	_, err := srv.Client.CorrectFile(context.Background(), src, filepath.Join(dir, "out.jpg"), nil, nil)
	require.NoError(t, err)

	const poll = `attempt GET "/status/{jobID}" 200 #1` // the number of polls depends on the mock's pace
	assert.Equal(t, []string{
		"start flow hosted.CorrectFile",
		`attempt GET "/upload" 200 #1`,
		`attempt PUT "" 200 #1`,
		`attempt GET "/pfc" 200 #1`,
		"job hosted submitted<- submitted=true terminal=false failed=false",
		poll,
		"job hosted COMPLETED<- submitted=false terminal=true failed=false",
		`attempt GET "" 200 #1`,
		"end flow hosted.CorrectFile err=false",
	}, observetest.Steady(rec.Lines(), poll))
	// Only the service's own endpoints may get a trace context.
	headers := rec.Headers()
	assert.Equal(t, []bool{true, false, true}, headers[:3])
	assert.False(t, headers[len(headers)-1], "the pre-signed download")
}

// TestLogsNameOperationAndDuration: with a logger, each response record
// names the flow it belongs to and how long the attempt took.
func TestLogsNameOperationAndDuration(t *testing.T) {
	t.Parallel()
	var buf streamtest.SyncBuffer
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithLogger(slog.New(h)))
	img := smallJPEG(t, 2, 40, 40)
	_, err := srv.Client.Correct(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &bytes.Buffer{}, nil)
	require.NoError(t, err)
	var responses int
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !strings.Contains(line, `"msg":"pfc: response"`) {
			continue
		}
		responses++
		assert.Contains(t, line, `"op":"hosted.Correct"`)
		assert.Contains(t, line, `"duration":`)
	}
	assert.GreaterOrEqual(t, responses, 5)
}

// TestNoOpenTelemetryDependency: a program importing hosted builds no
// OpenTelemetry package (the adapter lives in a module of its own).
func TestNoOpenTelemetryDependency(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/pfcsdk/pfc-go/hosted").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "github.com/pfcsdk/pfc-go/pfc")
	for _, p := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(p, "go.opentelemetry.io/"), "hosted depends on %s", p)
	}
}

// TestObserverSeesBulkRun: a bulk run is one "bulk" operation, each file
// an "item" with its flow inside it, every one ended.
func TestObserverSeesBulkRun(t *testing.T) {
	t.Parallel()
	rec := &observetest.Recorder{}
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithObserver(rec))
	in, out := t.TempDir(), t.TempDir()
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(in, fmt.Sprintf("%d.jpg", i)), smallJPEG(t, i, 40, 40), 0o644))
	}
	rep, err := srv.Client.CorrectDir(context.Background(), in, out, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Done)
	lines := rec.Lines()
	count := map[string]int{}
	for _, l := range lines {
		if strings.HasPrefix(l, "start ") || strings.HasPrefix(l, "end ") {
			count[l]++
		}
	}
	assert.Equal(t, map[string]int{
		"start bulk hosted.bulk": 1, "end bulk hosted.bulk err=false": 1,
		"start item hosted.bulk": 3, "end item hosted.bulk err=false": 3,
		"start flow hosted.CorrectFile": 3, "end flow hosted.CorrectFile err=false": 3,
	}, count)
	assert.Equal(t, "start bulk hosted.bulk", lines[0])
	assert.Equal(t, "end bulk hosted.bulk err=false", lines[len(lines)-1])
}
