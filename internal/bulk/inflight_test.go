package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// fakeJobs is a service in miniature for the runner: Start "starts" a job
// (its reference is the item's ID), Collect finishes a recorded one. The
// output of either is the input's copy.
type fakeJobs struct {
	copyWork
	mu        sync.Mutex
	starts    []string
	collects  []string
	forgotten map[string]bool // IDs whose job the service forgot
	failing   map[string]error
	// afterStart, if set, runs once started returned.
	afterStart func(ctx context.Context, it Item) error
}

func (f *fakeJobs) start(ctx context.Context, it Item, started Started) (string, error) {
	f.mu.Lock()
	f.starts = append(f.starts, it.ID)
	f.mu.Unlock()
	ref, _ := json.Marshal(map[string]string{"job": "job-" + it.ID})
	if err := started(ref); err != nil {
		return "", err
	}
	if f.afterStart != nil {
		if err := f.afterStart(ctx, it); err != nil {
			return "", err
		}
	}
	return f.do(ctx, it)
}

func (f *fakeJobs) collect(ctx context.Context, it Item, job json.RawMessage) (string, error) {
	f.mu.Lock()
	f.collects = append(f.collects, it.ID)
	forgot, fail := f.forgotten[it.ID], f.failing[it.ID]
	f.mu.Unlock()
	var ref map[string]string
	if err := json.Unmarshal(job, &ref); err != nil || ref["job"] != "job-"+it.ID {
		return "", errors.New("wrong job reference")
	}
	switch {
	case forgot:
		return "", pfc.ErrJobForgotten
	case fail != nil:
		return "", fail
	}
	return f.do(ctx, it)
}

func (f *fakeJobs) options(man string) Options[string] {
	return Options[string]{Manifest: man, Start: f.start, Collect: f.collect}
}

// writeLines writes a manifest by hand.
func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// startedLine is a "started" record of it as a run writes one.
func startedLine(t *testing.T, it Item) string {
	t.Helper()
	return startedLineAt(t, it, time.Time{})
}

// startedLineAt is startedLine recorded at the time at.
func startedLineAt(t *testing.T, it Item, at time.Time) string {
	t.Helper()
	b, err := json.Marshal(Record{ID: it.ID, Status: StatusStarted, Src: it.Src, Dst: it.Dst, Time: at,
		Job: json.RawMessage(`{"job":"job-` + it.ID + `"}`)})
	require.NoError(t, err)
	return string(b)
}

// TestRunRecordsStartedBeforeWait: the work's started call returns only
// once the "started" record with the job's reference is in the file (a
// crash right after it loses nothing); the item's done record follows.
func TestRunRecordsStartedBeforeWait(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 3)
	f := &fakeJobs{}
	f.afterStart = func(_ context.Context, it Item) error {
		data, err := os.ReadFile(man)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), `"id":"`+it.ID+`","status":"started"`) ||
			!strings.Contains(string(data), `"job":{"job":"job-`+it.ID+`"}`) {
			return errors.New("no started record before the wait: " + string(data))
		}
		return nil
	}
	rep := runOK(t, items, f.options(man))
	assert.Equal(t, 3, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 3, rep.Started)
	recs := readManifest(t, man)
	require.Len(t, recs, 6)
	last := map[string]string{}
	for _, r := range recs {
		last[r.ID] = r.Status
	}
	for _, it := range items {
		assert.Equal(t, StatusDone, last[it.ID])
	}
}

// TestRunCollectsBeforeStarting: a rerun first collects every job an
// earlier run recorded as started (no new job for them), then starts the
// rest; a forgotten job's item is done again and counted in Redone. An
// older manifest's records (no "job", no Raw names) load as before.
func TestRunCollectsBeforeStarting(t *testing.T) {
	t.Parallel()
	dir, items, man := manifestInputs(t, 5)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "out"), 0o755))
	require.NoError(t, os.WriteFile(items[0].Dst, []byte("input "+items[0].ID), 0o644))
	writeLines(t, man,
		// A record as manifests were written before "started" existed.
		`{"id":"`+items[0].ID+`","status":"done","src":"`+items[0].Src+`","dst":"`+items[0].Dst+`","bytes":5,"ms":1,"time":"2026-11-23T18:00:00Z","result":{"jobId":"j0"}}`,
		startedLine(t, items[1]),
		startedLine(t, items[2]),
	)
	f := &fakeJobs{forgotten: map[string]bool{items[2].ID: true}}
	o := f.options(man)
	o.Concurrency = 1
	o.OnResult = func(r Result[string]) {
		if r.Item.ID == items[1].ID {
			assert.True(t, r.Collected)
		}
	}
	rep := runOK(t, items, o)
	assert.Equal(t, 5, rep.Total)
	assert.Equal(t, 1, rep.Skipped, "the old done record still counts")
	assert.Equal(t, 4, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 1, rep.Redone)
	assert.Equal(t, 3, rep.Started, "items 2 (forgotten), 3 and 4")
	assert.Equal(t, []string{items[1].ID, items[2].ID}, f.collects)
	assert.Equal(t, []string{items[2].ID, items[3].ID, items[4].ID}, f.starts, "nothing starts before the collection ends")
	for _, it := range items {
		assert.FileExists(t, it.Dst)
	}
	// Everything is done now: a third run does nothing.
	f2 := &fakeJobs{}
	rep = runOK(t, items, f2.options(man))
	assert.Equal(t, 5, rep.Skipped)
	assert.Empty(t, f2.starts)
	assert.Empty(t, f2.collects)
}

// TestRunCollectFailureKeepsJob: a collection that fails for another
// reason than a forgotten job (a timeout, a network error) is reported
// but not recorded, and the item gets no new job in that run: the next
// rerun collects the same job again rather than paying for another.
func TestRunCollectFailureKeepsJob(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 2)
	writeLines(t, man, startedLine(t, items[0]))
	boom := errors.New("still processing after MaxWait")
	f := &fakeJobs{failing: map[string]error{items[0].ID: boom}}
	rep := runOK(t, items, f.options(man))
	assert.Equal(t, 1, rep.Failed)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0].Err, boom)
	assert.Equal(t, []string{items[1].ID}, f.starts, "no second job for the failed collection")

	f2 := &fakeJobs{}
	rep = runOK(t, items, f2.options(man))
	assert.Equal(t, []string{items[0].ID}, f2.collects, "collected again")
	assert.Empty(t, f2.starts)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 1, rep.Skipped)
}

// TestRunMaxStarts: at the cap no new item starts, the rest are reported
// not started with an error matching pfc.ErrJobCapReached, and a rerun
// goes on where the first stopped.
func TestRunMaxStarts(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 7)
	for run, want := range []struct{ done, skipped, notStarted int }{{3, 0, 4}, {3, 3, 1}, {1, 6, 0}} {
		f := &fakeJobs{}
		o := f.options(man)
		o.MaxStarts, o.Total = 3, len(items)
		rep, err := Run(context.Background(), slices.Values(items), nil, o)
		if want.notStarted > 0 {
			require.ErrorIs(t, err, pfc.ErrJobCapReached, "run %d", run)
		} else {
			require.NoError(t, err, "run %d", run)
		}
		assert.Equal(t, want.done, rep.Done, "run %d", run)
		assert.Equal(t, want.done, rep.Started, "run %d", run)
		assert.Equal(t, want.skipped, rep.Skipped, "run %d", run)
		assert.Equal(t, want.notStarted, rep.NotStarted, "run %d", run)
		assert.Equal(t, len(items), rep.Total, "run %d", run)
	}
	_, err := Run(context.Background(), slices.Values(items), nil, Options[string]{Start: (&fakeJobs{}).start, MaxStarts: -1})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Fields(), "MaxStarts")
}

// TestRunDryRun: a dry run lists what a run would do (to process, done,
// in flight to collect, refused with the field named) without calling the
// work or the collection and without touching the manifest; without a
// manifest file it creates none.
func TestRunDryRun(t *testing.T) {
	t.Parallel()
	dir, items, man := manifestInputs(t, 4)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "out"), 0o755))
	require.NoError(t, os.WriteFile(items[0].Dst, []byte("x"), 0o644))
	b, err := json.Marshal(Record{ID: items[0].ID, Status: StatusDone, Src: items[0].Src, Dst: items[0].Dst})
	require.NoError(t, err)
	writeLines(t, man, string(b), startedLine(t, items[1]))
	before, err := os.ReadFile(man)
	require.NoError(t, err)
	missing := Item{ID: "gone.jpg", Src: filepath.Join(dir, "in", "gone.jpg"), Dst: filepath.Join(dir, "out", "gone.jpg")}
	noDst := Item{ID: "nodst.jpg", Src: items[3].Src}
	all := append(slices.Clone(items), missing, noDst)

	f := &fakeJobs{}
	o := f.options(man)
	o.DryRun = true
	rep := runOK(t, all, o)
	require.NotNil(t, rep.Plan)
	ids := func(its []Item) (out []string) {
		for _, it := range its {
			out = append(out, it.ID)
		}
		return out
	}
	assert.Equal(t, []string{items[2].ID, items[3].ID}, ids(rep.Plan.Process))
	assert.Equal(t, []string{items[0].ID}, ids(rep.Plan.Done))
	assert.Equal(t, []string{items[1].ID}, ids(rep.Plan.Collect))
	require.Len(t, rep.Plan.Refused, 2)
	assert.Equal(t, "gone.jpg", rep.Plan.Refused[0].Item.ID)
	assert.ErrorIs(t, rep.Plan.Refused[0].Err, os.ErrNotExist)
	assert.ErrorContains(t, rep.Plan.Refused[0].Err, "SrcPath")
	var ve *pfc.ValidationError
	require.ErrorAs(t, rep.Plan.Refused[1].Err, &ve)
	assert.Equal(t, []string{"DstPath"}, ve.Fields())
	assert.Empty(t, f.starts)
	assert.Empty(t, f.collects)
	assert.Zero(t, f.count(items[2].ID))
	after, err := os.ReadFile(man)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the manifest is read, not written")
	assert.NoFileExists(t, items[2].Dst)

	other := filepath.Join(dir, "none", ManifestName)
	o.Manifest = other
	rep = runOK(t, items, o)
	assert.Len(t, rep.Plan.Process, 4, "no manifest file: everything to process")
	assert.NoFileExists(t, other)
	assert.NoDirExists(t, filepath.Dir(other))
}

// TestRunUsage: Report.Usage sums the counters of the done items,
// collected ones included.
func TestRunUsage(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 3)
	writeLines(t, man, startedLine(t, items[0]))
	f := &fakeJobs{}
	o := f.options(man)
	o.Usage = func(string) map[string]float64 { return map[string]float64{"imageCorrectionCount": 1, "size:S": 1} }
	rep := runOK(t, items, o)
	assert.Equal(t, map[string]float64{"imageCorrectionCount": 3, "size:S": 3}, rep.Usage)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 2, rep.Started)
}

// TestRunForgottenButWritten: a forgotten job whose output was written
// after its "started" record (the run stopped between the output's rename
// and the item's record, and the service dropped the job since) is done,
// not redone; an output older than the record is not taken for it.
func TestRunForgottenButWritten(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 2)
	recorded := time.Now().Add(-time.Hour).UTC()
	var lines []string
	for _, it := range items {
		require.NoError(t, os.MkdirAll(filepath.Dir(it.Dst), 0o755))
		require.NoError(t, os.WriteFile(it.Dst, []byte("input "+it.ID), 0o644))
		lines = append(lines, startedLineAt(t, it, recorded))
	}
	stale := recorded.Add(-time.Hour)
	require.NoError(t, os.Chtimes(items[1].Dst, stale, stale))
	writeLines(t, man, lines...)
	f := &fakeJobs{forgotten: map[string]bool{items[0].ID: true, items[1].ID: true}}
	rep := runOK(t, items, f.options(man))
	assert.Equal(t, 2, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 1, rep.Redone)
	assert.Equal(t, []string{items[1].ID}, f.starts, "only the item whose output is older than its job")
}

// TestRunCollectsOnlyInputItems: a "started" record is collected only for
// an item of this run's input, into that item's Dst: a record planted
// with another output path writes nothing there, and one for an ID not in
// the input is left alone.
func TestRunCollectsOnlyInputItems(t *testing.T) {
	t.Parallel()
	dir, items, man := manifestInputs(t, 2)
	planted := items[0]
	planted.Dst = filepath.Join(dir, "elsewhere", "victim.txt")
	stranger := Item{ID: "not-in-input.jpg", Src: items[1].Src, Dst: filepath.Join(dir, "elsewhere", "other.txt")}
	writeLines(t, man, startedLine(t, planted), startedLine(t, stranger))
	f := &fakeJobs{}
	rep := runOK(t, items, f.options(man))
	assert.Equal(t, 2, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, []string{items[0].ID}, f.collects)
	assert.FileExists(t, items[0].Dst)
	assert.NoDirExists(t, filepath.Join(dir, "elsewhere"))
}

// TestRunFailedJobCollected: an item whose work failed after its job
// started (a wait that ran out, a download cut off) keeps the job's
// reference in its "failed" record, and a rerun collects that job rather
// than pay for another; a job that failed at the service (forgotten) is
// redone.
func TestRunFailedJobCollected(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 2)
	timeout := errors.New("gave up waiting")
	f := &fakeJobs{afterStart: func(context.Context, Item) error { return timeout }}
	rep := runOK(t, items, f.options(man))
	assert.Equal(t, 2, rep.Failed)
	for _, rec := range readManifest(t, man) {
		if rec.Status == StatusFailed {
			assert.JSONEq(t, `{"job":"job-`+rec.ID+`"}`, string(rec.Job), "the failed record keeps its job")
		}
	}
	f2 := &fakeJobs{forgotten: map[string]bool{items[1].ID: true}}
	rep = runOK(t, items, f2.options(man))
	assert.Equal(t, 2, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 1, rep.Collected)
	assert.Equal(t, 1, rep.Redone)
	assert.Equal(t, []string{items[1].ID}, f2.starts, "a new job only for the forgotten one")
}

// TestCollectIntoSinkTouchesNoLocalFile: collecting recorded jobs whose
// outputs go to a Sink (Dst names in it) creates no local folder named
// after a Dst, and a forgotten job is redone even when a local file of
// the Dst's name (here the package's own doc.go, modified after the
// record) exists: the output is looked for in the sink, not in the
// process's working directory.
func TestCollectIntoSinkTouchesNoLocalFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := makeInputs(t, dir, 2)
	dsts := []string{"doc.go", "revbulk-no-such-dir/b.png"}
	items := make([]Item, len(in))
	for i, it := range in {
		items[i] = Item{ID: it.ID, Src: it.Src, Dst: dsts[i]}
	}
	man := filepath.Join(dir, ManifestName)
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	var lines []string
	for _, it := range items {
		lines = append(lines, startedLineAt(t, it, old))
	}
	writeLines(t, man, lines...)
	sink := &bulktest.MemSink{}
	copyTo := func(ctx context.Context, it Item) (string, error) {
		f, err := os.Open(it.Src)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return "ok", WriteOutput(ctx, nil, sink, it.Dst, func(w io.Writer) error {
			_, err := io.Copy(w, f)
			return err
		})
	}
	var starts []string
	var mu sync.Mutex
	o := Options[string]{Manifest: man, Sink: sink, Concurrency: 1,
		Start: func(ctx context.Context, it Item, started Started) (string, error) {
			mu.Lock()
			starts = append(starts, it.ID)
			mu.Unlock()
			return copyTo(ctx, it)
		},
		Collect: func(ctx context.Context, it Item, _ json.RawMessage) (string, error) {
			if it.Dst == "doc.go" {
				return "", pfc.ErrJobForgotten
			}
			return copyTo(ctx, it)
		},
	}
	rep := runOK(t, items, o)
	assert.Equal(t, 2, rep.Done, "%v", rep.Failures)
	assert.Equal(t, 1, rep.Redone, "the forgotten job is redone: its output is not in the sink")
	assert.Equal(t, []string{items[0].ID}, starts)
	ok, _ := sink.Exists(context.Background(), "doc.go")
	assert.True(t, ok, "the redone item's output is in the sink")
	_, err := os.Lstat("revbulk-no-such-dir")
	if !assert.ErrorIs(t, err, fs.ErrNotExist, "no local folder made for a sink's name") {
		_ = os.RemoveAll("revbulk-no-such-dir")
	}
}

// TestCollectScopesTempFiles: a collection's download gets the run's
// scope, as the work does, so that a temporary file a kill leaves
// mid-download is named after the run and removed by the next one.
func TestCollectScopesTempFiles(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 1)
	writeLines(t, man, startedLine(t, items[0]))
	f := &fakeJobs{}
	o := f.options(man)
	var tag string
	o.Collect = func(ctx context.Context, it Item, job json.RawMessage) (string, error) {
		if it.Scope != nil {
			tag = it.Scope.TempTag
		}
		return f.collect(ctx, it, job)
	}
	rep := runOK(t, items, o)
	assert.Equal(t, 1, rep.Collected)
	assert.True(t, strings.HasPrefix(tag, manifestKey(man)+"-"), "the collection's temporary files are named after the run: tag %q", tag)
}

// TestDryRunMatchesRunOnSkipExisting: with SkipExisting, an item whose
// job an earlier run recorded and whose output exists is collected by a
// run (the job's output, and a container job's removal): the dry run
// lists it to collect, as the run then does, not as done.
func TestDryRunMatchesRunOnSkipExisting(t *testing.T) {
	t.Parallel()
	_, items, man := manifestInputs(t, 1)
	writeLines(t, man, startedLine(t, items[0]))
	require.NoError(t, os.MkdirAll(filepath.Dir(items[0].Dst), 0o755))
	require.NoError(t, os.WriteFile(items[0].Dst, []byte("x"), 0o644))
	f := &fakeJobs{}
	o := f.options(man)
	o.SkipExisting, o.DryRun = true, true
	plan := runOK(t, items, o)
	o.DryRun = false
	rep := runOK(t, items, o)
	assert.Equal(t, 1, rep.Collected, "the run collects the recorded job")
	assert.Len(t, plan.Plan.Collect, 1, "the dry run says so")
	assert.Empty(t, plan.Plan.Done)
}
