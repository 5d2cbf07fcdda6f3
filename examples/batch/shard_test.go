package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
)

// childEnv carries a child's arguments (JSON) to TestHelperBatchProcess.
const childEnv = "PFC_BATCH_CHILD_ARGS"

// TestHelperBatchProcess is not a test: run by a test as a child process
// (the test binary itself, with childEnv set), it runs the command with
// the arguments of childEnv and exits with its status.
func TestHelperBatchProcess(t *testing.T) {
	raw := os.Getenv(childEnv)
	if raw == "" {
		t.Skip("a child process of the shard tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	code, err := run(context.Background(), args, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "batch:", err)
		if code == 0 {
			code = 2
		}
	}
	os.Exit(code)
}

// child returns the command running examples/batch with args in a child
// process, with extra environment variables.
func child(ctx context.Context, args []string, env ...string) *exec.Cmd {
	raw, _ := json.Marshal(args)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperBatchProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"="+string(raw)), env...)
	return cmd
}

// countingFleet is n background-removal container mocks, each behind a
// handler counting the jobs started (SubmitImage answered 200) and, when
// held, holding every SubmitImage after the first hold ones until released.
type countingFleet struct {
	urls []string
	// mu guards run and started: started counts the jobs of run, those
	// submitted on connections accepted since newRun made it the run.
	mu      sync.Mutex
	run     int64
	started int64
	// hold, when positive, lets that many more SubmitImage through and
	// holds the next ones (they answer 503 once released).
	hold    atomic.Int64
	holding chan struct{} // closed when a SubmitImage is held
	release chan struct{} // closed to let the held ones go
	once    sync.Once
	// busy measures each replica's share of time with a job on it.
	busy []*busyMeter
}

// runKey is the context key of a connection's run (countingFleet.run when
// the connection was accepted).
type runKey struct{}

// newRun starts counting the jobs of a new run, from zero: of the
// connections accepted from now on. A killed process's submission that a
// mock still handles (its handler late on a busy machine) then never
// counts in the next run's jobs, as it did when the count was reset.
func (f *countingFleet) newRun() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.run++
	f.started = 0
}

// jobs returns the number of jobs started in the current run.
func (f *countingFleet) jobs() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

// pass reports whether a SubmitImage may go on under hold; false holds it.
func (f *countingFleet) pass() bool {
	for {
		h := f.hold.Load()
		switch {
		case h == 0:
			return true
		case h < 0:
			return false
		}
		next := h - 1
		if next == 0 {
			next = -1 // this one passes, the next ones are held
		}
		if f.hold.CompareAndSwap(h, next) {
			return true
		}
	}
}

func startCountingFleet(t testing.TB, n int) *countingFleet {
	f := &countingFleet{holding: make(chan struct{}), release: make(chan struct{})}
	for range n {
		mock, err := bgmock.New(bgmock.Options{Activated: true, Workers: 1})
		require.NoError(t, err)
		bm := &busyMeter{}
		f.busy = append(f.busy, bm)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			submit := r.Method == http.MethodPost && r.URL.Path == "/SubmitImage"
			if submit && !f.pass() {
				f.once.Do(func() { close(f.holding) })
				<-f.release
				http.Error(w, "held by the test", http.StatusServiceUnavailable)
				return
			}
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			if submit {
				bm.add(1)
			}
			mock.ServeHTTP(sw, r)
			switch {
			case submit && sw.status == http.StatusOK:
				f.mu.Lock()
				if r.Context().Value(runKey{}) == f.run {
					f.started++
				}
				f.mu.Unlock()
			case submit:
				bm.add(-1)
			case r.Method == http.MethodDelete || strings.HasPrefix(r.URL.Path, "/RemoveImage/"):
				bm.add(-1)
			}
		}))
		srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
			f.mu.Lock()
			defer f.mu.Unlock()
			return context.WithValue(ctx, runKey{}, f.run)
		}
		srv.Start()
		t.Cleanup(func() { srv.Close(); mock.Close() })
		f.urls = append(f.urls, srv.URL)
	}
	return f
}

// statusWriter records the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// busyMeter sums the time a replica holds at least one job (from its
// SubmitImage to its RemoveImage).
type busyMeter struct {
	mu    sync.Mutex
	jobs  int
	since time.Time
	total time.Duration
}

func (b *busyMeter) add(d int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if b.jobs > 0 {
		b.total += now.Sub(b.since)
	}
	b.since = now
	b.jobs = max(b.jobs+d, 0)
}

// take returns the busy time so far and starts again from zero.
func (b *busyMeter) take() time.Duration {
	b.add(0)
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.total
	b.total = 0
	return t
}

// writeShardImages writes n 16×16 PNGs into dir, spread over subfolders,
// and returns their relative names.
func writeShardImages(t testing.TB, dir string, n int) []string {
	var names []string
	for i := range n {
		rel := fmt.Sprintf("d%d/img%03d.png", i%4, i)
		img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
		for p := range 256 {
			img.Set(p%16, p/16, color.NRGBA{R: uint8(i), G: uint8(p), B: uint8(3 * p), A: 255})
		}
		var buf bytes.Buffer
		require.NoError(t, png.Encode(&buf, img))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), buf.Bytes(), 0o644))
		names = append(names, rel)
	}
	return names
}

// doneIDs reads a manifest's "done" IDs, failing on an ID done twice.
func doneIDs(t *testing.T, path string) map[string]bool {
	return recordIDs(t, path, "done", true)
}

// startedIDs reads the IDs of a manifest's "started" records: jobs the
// service accepted, which a rerun collects rather than start again.
func startedIDs(t *testing.T, path string) map[string]bool {
	return recordIDs(t, path, "started", false)
}

// recordIDs reads the IDs of a manifest's records of status; with once,
// an ID recorded so twice fails the test.
func recordIDs(t *testing.T, path, status string, once bool) map[string]bool {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct{ ID, Status string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		if rec.Status == status {
			require.False(t, once && ids[rec.ID], "%s recorded %s twice in %s", rec.ID, status, path)
			ids[rec.ID] = true
		}
	}
	require.NoError(t, sc.Err())
	return ids
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// stamps returns the stamp of every file under dir but the manifests,
// by relative name.
func stamps(t *testing.T, dir string) map[string]fileStamp {
	m := map[string]fileStamp{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		var ino uint64
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		m[filepath.ToSlash(rel)] = fileStamp{info.Size(), info.ModTime(), ino}
		return nil
	}))
	return m
}

// TestShardsInProcesses: 4 processes, shards 0-3 of one tree of 60
// images, run at once against a 3-replica fleet, into one output folder:
// together they produce every image, each by one shard, one job per
// image. Then shard 2, from scratch, is killed (SIGKILL) mid-run and run
// again: it completes, redoing nothing it recorded, and the other shards'
// files are untouched. (60 images: 15 a shard, so that shard 2, killed
// once its 10th job started, has images it never started as well as
// jobs in flight; the count is not the subject.)
func TestShardsInProcesses(t *testing.T) {
	t.Parallel()
	if raceEnabled && !heavyTests {
		// Its children are this binary, race detector included, and a race
		// between processes is none the detector sees (as in
		// TestBatchSurvivesKills); the shards' split is raced in internal/bulk.
		t.Skip("processes and kills, not in-process races: checked without the race detector (go test, and .ci/run's heavy step)")
	}
	const n, images = 4, 60
	fleet := startCountingFleet(t, 3)
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	names := writeShardImages(t, in, images)
	base := []string{"-api", "bg", "-url", strings.Join(fleet.urls, ","), "-in", in, "-out", out, "-concurrency", "4"}
	key := "PFC_BG_LICENSE_KEY=" + bgmock.DefaultLicenseKey

	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range n {
		// Shard 3 takes its index from JOB_COMPLETION_INDEX, as in an
		// Indexed Job.
		args := append(base[:len(base):len(base)], "-shard", fmt.Sprintf("%d/%d", i, n))
		env := []string{key}
		if i == 3 {
			args[len(args)-1] = "4"
			env = append(env, "JOB_COMPLETION_INDEX=3")
		}
		cmd := child(t.Context(), args, env...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, &buf)
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "shard %d: %s", i, outs[i])
		assert.Contains(t, outs[i].String(), fmt.Sprintf("bg shard %d/%d:", i, n))
	}
	all := map[string]int{}
	for i := range n {
		for id := range doneIDs(t, filepath.Join(out, fmt.Sprintf(".pfc-bulk.shard-%d-of-%d.jsonl", i, n))) {
			all[id]++
		}
	}
	require.Len(t, all, images, "the shards' union is every image")
	for _, rel := range names {
		assert.Equal(t, 1, all[rel], "%s done by exactly one shard", rel)
		assert.FileExists(t, filepath.Join(out, strings.TrimSuffix(rel, ".png")+".png"))
	}
	assert.EqualValues(t, images, fleet.jobs(), "one job started per image")

	// Shard 2 from scratch: its outputs and manifest go.
	m2 := filepath.Join(out, ".pfc-bulk.shard-2-of-4.jsonl")
	mine := doneIDs(t, m2)
	for id := range mine {
		require.NoError(t, os.Remove(filepath.Join(out, id)))
	}
	require.NoError(t, os.Remove(m2))
	others := stamps(t, out)

	// Killed once it is well under way: the jobs after the 10th are held,
	// and the process killed while one is.
	fleet.newRun()
	fleet.hold.Store(10)
	cmd := child(t.Context(), append(base[:len(base):len(base)], "-shard", "2/4"), key)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-fleet.holding:
	case err := <-exited:
		t.Fatalf("shard 2 ended before it was killed: %v\n%s", err, &buf)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, <-exited)
	fleet.hold.Store(0)
	close(fleet.release)
	before := doneIDs(t, m2)
	require.Less(t, len(before), len(mine), "killed before the end")
	inFlight := 0 // recorded started, not done: the rerun collects them
	for id := range startedIDs(t, m2) {
		if !before[id] {
			inFlight++
		}
	}
	require.Positive(t, len(mine)-len(before)-inFlight, "the kill left images never started, for the rerun to start")

	fleet.newRun()
	buf.Reset()
	cmd = child(t.Context(), append(base[:len(base):len(base)], "-shard", "2/4"), key)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	require.NoError(t, cmd.Run(), "%s", &buf)
	assert.Contains(t, buf.String(), fmt.Sprintf("%d processed, %d already done, 0 failed", len(mine)-len(before), len(before)))
	assert.EqualValues(t, len(mine)-len(before)-inFlight, fleet.jobs(), "the rerun starts a job for each image not recorded, only\n%s", &buf)
	assert.Equal(t, mine, doneIDs(t, m2))
	after := stamps(t, out)
	for rel, st := range others {
		assert.Equal(t, st, after[rel], "%s untouched by shard 2", rel)
	}
	for rel := range after {
		assert.NotContains(t, rel, ".partial", "no temporary file left")
	}
	assert.Len(t, after, len(others)+len(mine)+1, "shard 2's outputs and manifest back, nothing else")
}

// TestParseShard reads -shard and $JOB_COMPLETION_INDEX.
func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v, env string
		want   string // "i/n", or "" for an error
	}{
		{"2/4", "", "2/4"}, {"2/4", "3", "2/4"}, {"4", "3", "3/4"}, {"/4", "0", "0/4"}, {"1", "0", "0/1"},
		{"4", "", ""}, {"4", "4", ""}, {"4", "-1", ""}, {"4/4", "", ""}, {"0", "0", ""}, {"x/4", "", ""},
		{"1/x", "", ""}, {"-1/4", "", ""}, {"4", "two", ""}, {"", "1", ""}, {"1/2/3", "", ""},
	} {
		sh, err := parseShard(c.v, c.env)
		if c.want == "" {
			assert.Error(t, err, "%q with %q", c.v, c.env)
			continue
		}
		require.NoError(t, err, "%q with %q", c.v, c.env)
		assert.Equal(t, c.want, fmt.Sprintf("%d/%d", sh.Index, sh.Count))
	}
}

// TestParseShardErrors: a bad -shard names what is wrong with it, the
// count before the index (a bad count is not reported as a missing
// index).
func TestParseShardErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ v, env, want string }{
		{"x", "", `-shard "x": the shard count must be a positive integer (i/n, or n with $JOB_COMPLETION_INDEX)`},
		{"0", "", `-shard "0": the shard count must be a positive integer`},
		{"/", "", `-shard "/": the shard count must be a positive integer`},
		{"4", "", `-shard "4" names no index and $JOB_COMPLETION_INDEX is not set (give i/n)`},
		{"4/4", "", `-shard "4/4": the index "4" must be an integer from 0 to 3`},
		{"4", "x", `-shard "4": the index "x" must be an integer from 0 to 3`},
	} {
		_, err := parseShard(c.v, c.env)
		require.Error(t, err, "%q with %q", c.v, c.env)
		assert.Contains(t, err.Error(), c.want, "%q with %q", c.v, c.env)
	}
}
