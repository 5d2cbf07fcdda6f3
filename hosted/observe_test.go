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
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// recorder is a pfc.Observer that writes each event as a line.
type recorder struct {
	pfc.NopObserver
	mu    sync.Mutex
	lines []string
	// headers says, per attempt, whether it had a header to propagate
	// a trace context in.
	headers []bool
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *recorder) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	r.add("start %s %s", op.Kind, op.Name)
	return ctx
}

func (r *recorder) EndOperation(_ context.Context, op *pfc.Operation) {
	r.add("end %s %s err=%v", op.Kind, op.Name, op.Err != nil)
}

func (r *recorder) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	r.mu.Lock()
	r.headers = append(r.headers, a.Header != nil)
	r.mu.Unlock()
	if a.Header != nil {
		a.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	}
	return ctx
}

func (r *recorder) EndAttempt(_ context.Context, a *pfc.Attempt) {
	r.add("attempt %s %q %d #%d", a.Method, a.Route, a.Status, a.Number)
}

func (r *recorder) JobUpdate(_ context.Context, j *pfc.JobUpdate) {
	r.add("job %s %s<-%s submitted=%v terminal=%v failed=%v", j.API, j.Status, j.Previous, j.Submitted, j.Terminal, j.Failed)
}

// TestObserverSeesCorrectFile: a CorrectFile against the mock reports its
// flow, each attempt by route template (the pre-signed upload and
// download with no route and no header to propagate a trace context in),
// and the job's submission and completion, in order.
func TestObserverSeesCorrectFile(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithObserver(rec))
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(src, smallJPEG(t, 1, 40, 40), 0o644))
	_, err := srv.Client.CorrectFile(context.Background(), src, filepath.Join(dir, "out.jpg"), nil, nil)
	require.NoError(t, err)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []string
	for _, l := range dropIntermediate(rec.lines) {
		if l == `attempt GET "/status/{jobID}" 200 #1` && got[len(got)-1] == l {
			continue // the number of polls depends on the mock's pace
		}
		got = append(got, l)
	}
	assert.Equal(t, []string{
		"start flow hosted.CorrectFile",
		`attempt GET "/upload" 200 #1`,
		`attempt PUT "" 200 #1`,
		`attempt GET "/pfc" 200 #1`,
		"job hosted submitted<- submitted=true terminal=false failed=false",
		`attempt GET "/status/{jobID}" 200 #1`,
		"job hosted COMPLETED<- submitted=false terminal=true failed=false",
		`attempt GET "" 200 #1`,
		"end flow hosted.CorrectFile err=false",
	}, got)
	// Only the service's own endpoints may get a trace context.
	assert.Equal(t, []bool{true, false, true}, rec.headers[:3])
	assert.False(t, rec.headers[len(rec.headers)-1], "the pre-signed download")
}

// dropIntermediate drops the job updates before COMPLETED, which depend
// on the mock's pace, and the polls that come with them.
func dropIntermediate(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "job hosted PENDING") || strings.HasPrefix(l, "job hosted PROCESSING") {
			continue
		}
		if strings.HasPrefix(l, "job hosted COMPLETED<-") {
			l = "job hosted COMPLETED<-" + l[strings.Index(l, " submitted="):]
		}
		out = append(out, l)
	}
	return out
}

// TestLogsNameOperationAndDuration: with a logger, each response record
// names the flow it belongs to and how long the attempt took.
func TestLogsNameOperationAndDuration(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	h := slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug})
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithLogger(slog.New(h)))
	img := smallJPEG(t, 2, 40, 40)
	_, err := srv.Client.Correct(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &bytes.Buffer{}, nil)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
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

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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
	rec := &recorder{}
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor}, pfc.WithObserver(rec))
	in, out := t.TempDir(), t.TempDir()
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(in, fmt.Sprintf("%d.jpg", i)), smallJPEG(t, i, 40, 40), 0o644))
	}
	rep, err := srv.Client.CorrectDir(context.Background(), in, out, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Done)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	count := map[string]int{}
	for _, l := range rec.lines {
		if strings.HasPrefix(l, "start ") || strings.HasPrefix(l, "end ") {
			count[l]++
		}
	}
	assert.Equal(t, map[string]int{
		"start bulk hosted.bulk": 1, "end bulk hosted.bulk err=false": 1,
		"start item hosted.bulk": 3, "end item hosted.bulk err=false": 3,
		"start flow hosted.CorrectFile": 3, "end flow hosted.CorrectFile err=false": 3,
	}, count)
	assert.Equal(t, "start bulk hosted.bulk", rec.lines[0])
	assert.Equal(t, "end bulk hosted.bulk err=false", rec.lines[len(rec.lines)-1])
}
