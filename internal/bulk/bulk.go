package bulk

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// DefaultConcurrency is the number of items in flight when
// Options.Concurrency is 0.
const DefaultConcurrency = 4

// Item is one input file of a run and where its output goes.
type Item struct {
	// ID identifies the item in the manifest; it must be unique within a
	// run. Empty means Src.
	ID string
	// Src is the input file's path.
	Src string
	// Dst is the output file's path. Its directory is created if needed.
	Dst string
	// Listed, when set (Dir sets it), is the identity of the regular file
	// listed at Src: the work's fileio.OpenParamScoped of Src with Scope
	// opens it without following a symbolic link, and only if it is still
	// that file (the item fails otherwise, nothing written).
	Listed fileio.FileID
	// Scope is set by the run before the work is called (what a caller
	// set is replaced): the work passes it to the file functions
	// (fileio.OpenParamScoped, WriteFileAtomicScoped, DownloadFile), which
	// then pin Src to Listed and name their temporary files after the run.
	// nil when neither applies.
	Scope *fileio.Scope
}

// Limiter paces item starts: Wait blocks until the next item may start or
// ctx ends. *rate.Limiter (golang.org/x/time/rate) satisfies it; see
// NewLimiter.
type Limiter interface {
	Wait(ctx context.Context) error
}

// Progress is a snapshot of a run, given to Options.OnProgress.
type Progress struct {
	// Total is the number of items, or -1 while unknown (an iter.Seq
	// input without Options.Total).
	Total int
	// Done, Failed and Skipped count finished items: done in this run,
	// failed in this run, and done in an earlier run (manifest).
	Done, Failed, Skipped int
	// InFlight counts the items being worked on.
	InFlight int
	// Bytes is the input size of the items done or failed in this run.
	Bytes int64
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// ETA estimates the time left from this run's pace; 0 when unknown
	// (nothing finished yet, or Total unknown).
	ETA time.Duration
	// Rate is Options.Rate's answer: the requests per second the client's
	// rate budget allows now; 0 without one.
	Rate float64
}

// Result is the outcome of one item.
type Result[R any] struct {
	// Item is the item, with its ID filled in.
	Item Item
	// Value is the work's result (zero when skipped or failed).
	Value R
	// Err is the work's error, unchanged (errors.As works on it); nil when
	// the item is done.
	Err error
	// Kind classifies Err (Options.Kind); empty when Err is nil.
	Kind string
	// Skipped reports an item done in an earlier run (its manifest record
	// is in Record).
	Skipped bool
	// Collected reports an item finished by collecting the job an
	// earlier run had started (Options.Collect), not by a new one.
	Collected bool
	// Record is the manifest record of a skipped item.
	Record *Record
	// Bytes is the input's size.
	Bytes int64
	// Duration is how long the work took.
	Duration time.Duration
}

// Report sums up a run.
type Report[R any] struct {
	// Total is the number of items seen.
	Total int
	// Done, Failed and Skipped count items done in this run, failed in
	// this run, and skipped as done in an earlier run.
	Done, Failed, Skipped int
	// Interrupted counts items cancelled in flight, or not started, when
	// the run stopped early; a rerun does them.
	Interrupted int
	// Started counts the jobs this run started (the work's started
	// calls); Collected the items finished from a job an earlier run
	// started (in Done or Failed too); Redone the jobs recorded in flight
	// that the service had forgotten (ErrJobForgotten), whose items are
	// done again like any other.
	Started, Collected, Redone int
	// NotStarted counts the items left when Options.MaxStarts stopped the
	// run (with Total known; else at least 1); a rerun does them.
	NotStarted int
	// Usage sums Options.Usage over the items done in this run,
	// collected ones included; nil without Options.Usage.
	Usage map[string]float64
	// Plan is what a dry run (Options.DryRun) would do; nil otherwise.
	Plan *Plan[R]
	// Bytes is the input size of the items done or failed in this run.
	Bytes int64
	// Elapsed is how long the run took.
	Elapsed time.Duration
	// Failures lists every failed item, in the order they failed.
	Failures []Result[R]
	// Shard is the run's Options.Shard: the items of other shards are
	// not counted anywhere.
	Shard Shard
}

// Plan is what a run would do, as a dry run (Options.DryRun) finds it
// without sending anything.
type Plan[R any] struct {
	// Process lists the items a run would start a job for.
	Process []Item
	// Done lists the items done by an earlier run (skipped).
	Done []Item
	// Collect lists the items whose job an earlier run started, which a
	// run collects first.
	Collect []Item
	// Refused lists the items local checks refuse, each with its error
	// (an *apierr.ValidationError naming the field, or the file's error).
	Refused []Result[R]
}

// Started is what an item's work calls once the service accepted its job,
// with the client's reference to it (JSON), before it waits: the runner
// records it, durably, so that a rerun can collect the job instead of
// starting another. A nil job (a job no rerun could collect, as in
// pfccontainer's direct file mode) is counted only. An error (the
// manifest could not be written) must end the work with it.
type Started func(job json.RawMessage) error

// Ref is s with ref, the client's reference to the job, marshalled to
// JSON: the started hook every client's work builds around s.
func (s Started) Ref(ref any) error {
	b, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	return s(b)
}

// Options configures Run. The zero value runs DefaultConcurrency items at
// once, without rate limit, manifest or callbacks.
type Options[R any] struct {
	// Concurrency bounds the items in flight (0: DefaultConcurrency).
	Concurrency int
	// Limiter, if set, is waited on before each item starts.
	Limiter Limiter
	// Manifest is the path of the JSON Lines manifest; empty means none
	// (no resume).
	Manifest string
	// Total is the number of items when known in advance (Dir knows it),
	// for Progress.Total and the ETA; 0 means unknown.
	Total int
	// OnProgress, if set, receives a snapshot whenever an item starts or
	// finishes. Calls are serialised; keep it quick.
	OnProgress func(Progress)
	// OnResult, if set, receives every item's outcome as it finishes,
	// skipped items included. Calls are serialised with OnProgress.
	OnResult func(Result[R])
	// Summarize, if set, gives the manifest record of a done item its
	// "result" (for example the job id).
	Summarize func(R) json.RawMessage
	// Kind classifies a failure for Result.Kind and the manifest; nil, or
	// an empty answer, falls back to DefaultKind.
	Kind func(error) string
	// Redact is the client's redactor: every string of a manifest record
	// passes it before it is written (nil: none). See encodeRecord.
	Redact func(string) string
	// Rate, if set, gives Progress.Rate: the client's current rate
	// budget (transport.Client.Rate).
	Rate func() float64
	// Now is the clock of Elapsed and ETA; nil means time.Now. For tests.
	Now func() time.Time
	// Observer, if set, sees the run and each item as operations named
	// Name (see observeRun).
	Observer pfc.Observer
	Name     string
	// Shard, if set, keeps only the items of that shard (Shard.Has of
	// their ID); the others are passed over without a trace.
	Shard Shard
	// Source, if set, holds the inputs: Item.Src names a file in it.
	Source fs.FS
	// Sink, if set, receives the outputs: Item.Dst names one in it, and
	// the work publishes there (WriteOutput).
	Sink pfc.Sink
	// SkipExisting skips an item whose output exists, as done, even
	// without a manifest record (a run whose manifest did not outlive
	// its machine).
	SkipExisting bool
	// Start, if set, is the work in place of Run's work argument: it calls
	// started once the service accepted the item's job.
	Start func(ctx context.Context, it Item, started Started) (R, error)
	// Collect, if set, finishes an item from the job an earlier run
	// recorded as started (Record.Job): wait, then write the output as the
	// work does. An error matching pfc.ErrJobForgotten means the service
	// no longer knows the job: the item is done again.
	Collect func(ctx context.Context, it Item, job json.RawMessage) (R, error)
	// Usage, if set, gives the billing counters of a done item's result,
	// summed in Report.Usage.
	Usage func(R) map[string]float64
	// MaxStarts, if positive, caps the items this run starts a job for:
	// at the cap no new item starts, those in flight finish, and Run
	// returns an error matching pfc.ErrJobCapReached when items were left.
	MaxStarts int
	// DryRun makes Run do nothing but plan (Report.Plan): the manifest is
	// read, not written, and the work is never called.
	DryRun bool
}

// DefaultKind classifies the errors every client shares: "canceled",
// "deadline", "invalid_parameter" (apierr.ErrInvalidParameter), "file" (a
// file system error), and "error" for anything else.
func DefaultKind(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, apierr.ErrInvalidParameter):
		return "invalid_parameter"
	case errors.As(err, &pe), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return "file"
	default:
		return "error"
	}
}

// Run does work for every item of items, at most o.Concurrency at once,
// and returns the Report. It returns a non-nil error only when the run
// stopped early: ctx's error when ctx ended, one matching
// context.DeadlineExceeded when o.Limiter refused to wait past ctx's
// deadline (rate.Limiter does, at once), a *pfc.ManifestError when the
// manifest could not be read or written, an *apierr.ValidationError for
// unusable options. Failed items are not errors of Run: they are in
// Report.Failures (and OnResult), each with its error value.
//
// work must write its output to item.Dst atomically (all or nothing) and
// durably before it returns nil: the item is recorded done right after.
func Run[R any](ctx context.Context, items iter.Seq[Item], work func(context.Context, Item) (R, error), o Options[R]) (*Report[R], error) {
	if ctx == nil {
		return nil, errors.New("pfc: bulk: nil context")
	}
	var fe apierr.FieldErrors
	if items == nil {
		fe.Add("items", "is required")
	}
	if work == nil && o.Start == nil {
		fe.Add("work", "is required")
	}
	if o.MaxStarts < 0 {
		fe.Add("MaxStarts", "must not be negative, got %d", o.MaxStarts)
	}
	if o.Concurrency < 0 {
		fe.Add("Concurrency", "must not be negative, got %d", o.Concurrency)
	}
	if o.Total < 0 {
		fe.Add("Total", "must not be negative, got %d", o.Total)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	if err := o.Shard.Check("Shard"); err != nil {
		return nil, err
	}
	if o.Start == nil {
		o.Start = func(ctx context.Context, it Item, _ Started) (R, error) { return work(ctx, it) }
	}
	r := &runner[R]{o: o, now: o.Now}
	if r.now == nil {
		r.now = time.Now
	}
	if o.DryRun {
		return r.plan(ctx, items)
	}
	if o.Manifest != "" {
		f, prior, locked, err := openManifest(o.Manifest)
		if err != nil {
			return nil, err
		}
		r.prior = prior
		r.mw = newManifestWriter(o.Manifest, f, o.Redact)
		r.tempKey, r.token = manifestKey(o.Manifest), newToken()
		r.scope = &fileio.Scope{TempTag: r.tempKey + "-" + r.token}
		r.clean = locked
	}
	var endRun func(error)
	ctx, endRun = observeRun(ctx, &r.o)
	rep, err := r.run(ctx, items)
	endRun(err)
	return rep, err
}

// runner is the state of one Run.
type runner[R any] struct {
	o     Options[R]
	now   func() time.Time
	start time.Time
	prior map[string]Record
	mw    *manifestWriter // nil without a manifest

	// With a manifest: the run's temporary files are named with
	// tempKey (the manifest's) and token (the run's) in scope.TempTag;
	// clean says the manifest's lock is held, so that the cleanup may
	// remove the temporary files of dead runs of the manifest.
	tempKey, token string
	scope          *fileio.Scope
	clean          bool
	cleaned        sync.Map // output directory → *sync.Once of cleanDir

	collects sync.WaitGroup // the collections of recorded jobs under way

	mu       sync.Mutex // guards what follows, and serialises callbacks
	rep      Report[R]
	inFlight int
	fatal    error  // the first manifest failure
	starts   int    // items this run started (Options.MaxStarts)
	capped   bool   // MaxStarts refused a start
	holding  bool   // new starts wait for the collections (see run)
	deferred []Item // forgotten jobs' items, to start when the holding ends
}

func (r *runner[R]) run(ctx context.Context, items iter.Seq[Item]) (*Report[R], error) {
	r.start = r.now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := r.o.Concurrency
	if n == 0 {
		n = DefaultConcurrency
	}
	queue := make(chan task)
	var wg sync.WaitGroup
	workers := 0
	// send hands t to an idle worker, starting one while fewer than n
	// run (so a huge Concurrency costs only the workers the items use);
	// false when ctx ended first.
	send := func(t task) bool {
		select {
		case queue <- t:
			return true
		default:
		}
		if workers < n {
			workers++
			wg.Add(1)
			go func() {
				defer wg.Done()
				for t := range queue {
					if t.job != nil {
						r.collect(ctx, cancel, t)
					} else {
						r.do(ctx, cancel, t.it)
					}
				}
			}()
		}
		select {
		case queue <- t:
			return true
		case <-ctx.Done():
			return false
		}
	}
	seen := map[string]struct{}{}
	outputs := map[string]string{} // resolved Dst (outputKey) → the ID writing it
	keys := newOutputKeys()
	var stopErr error // the limiter's refusal, with ctx alive
	// The items whose job an earlier run recorded in flight are collected
	// as they come. Until every one of them came (or the input ended, or,
	// for an input of unknown size, maxPending items wait), the items to
	// start wait in pending: nothing new starts before the recorded jobs
	// are collected.
	wanted := r.recordedJobs()
	r.holding = len(wanted) > 0
	var pending []Item
	// start hands it to a worker; false: stop pulling (cap, limiter or ctx).
	start := func(it Item) bool {
		if !r.reserve() {
			return false
		}
		if r.o.Limiter != nil {
			if err := r.o.Limiter.Wait(ctx); err != nil {
				// rate.Limiter fails at once, with ctx still alive, when
				// the next start would fall after ctx's deadline: the run
				// stops as if the deadline had come.
				stopErr = limiterStop(ctx, err)
				r.interrupt()
				return false
			}
		}
		if !send(task{it: it}) {
			r.interrupt()
			return false
		}
		return true
	}
	// release ends the holding: once the collections are over, the items
	// held and those whose job was forgotten start.
	release := func() bool {
		r.collects.Wait()
		r.mu.Lock()
		r.holding = false
		pending = append(pending, r.deferred...)
		r.deferred = nil
		r.mu.Unlock()
		for i, it := range pending {
			if !start(it) {
				r.leave(len(pending) - i - 1)
				return false
			}
		}
		pending = nil
		return true
	}
	for it := range items {
		if ctx.Err() != nil {
			break // an iter.Seq may be endless: stop pulling
		}
		if it.ID == "" {
			it.ID = it.Src
		}
		if !r.o.Shard.Has(it.ID) {
			continue
		}
		r.mu.Lock()
		r.rep.Total++
		r.mu.Unlock()
		dst := path.Clean(it.Dst) // a sink's name
		if r.o.Sink == nil {
			dst = keys.key(it.Dst)
		}
		if err := r.checkItem(it, seen, outputs[dst]); err != nil {
			r.finish(Result[R]{Item: it, Err: err, Kind: "invalid_parameter"}, false)
			continue
		}
		seen[it.ID] = struct{}{}
		outputs[dst] = it.ID
		if rec, ok := r.prior[it.ID]; ok && rec.Status == StatusDone && r.exists(ctx, it.Dst) {
			r.finish(Result[R]{Item: it, Skipped: true, Record: &rec, Bytes: rec.Bytes}, false)
			continue
		}
		if rec, ok := wanted[it.ID]; ok {
			delete(wanted, it.ID)
			r.collects.Add(1)
			if !send(task{it: it, job: rec.Job, at: rec.Time}) {
				r.collects.Done()
				r.interrupt()
			}
			if r.holding && len(wanted) == 0 && !release() {
				break
			}
			continue
		}
		if r.o.SkipExisting && r.exists(ctx, it.Dst) {
			r.finish(Result[R]{Item: it, Skipped: true}, false)
			continue
		}
		if r.holding {
			pending = append(pending, it)
			if r.o.Total == 0 && len(pending) >= maxPending && !release() {
				break
			}
			continue
		}
		if !start(it) {
			break
		}
	}
	if r.holding {
		release()
	}
	close(queue)
	wg.Wait()
	var err error
	if r.mw != nil {
		err = r.mw.close()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Elapsed = r.now().Sub(r.start)
	r.rep.Shard = r.o.Shard
	stopped := ctx.Err() != nil || stopErr != nil
	if r.o.Total > r.rep.Total {
		switch {
		case stopped:
			// Items never pulled from a known-size input are interrupted too.
			r.rep.Interrupted += r.o.Total - r.rep.Total
			r.rep.Total = r.o.Total
		case r.capped:
			// Not looked at: some may be done already, a rerun sees.
			r.rep.NotStarted += r.o.Total - r.rep.Total
			r.rep.Total = r.o.Total
		}
	}
	rep := r.rep
	switch {
	case r.fatal != nil:
		return &rep, r.fatal
	case ctx.Err() != nil && rep.Interrupted > 0:
		return &rep, context.Cause(ctx)
	case stopErr != nil:
		return &rep, errors.Join(stopErr, err)
	case err != nil:
		return &rep, err
	case r.capped:
		return &rep, fmt.Errorf("pfc: bulk: %d jobs started, %d items left: %w", r.o.MaxStarts, rep.NotStarted, pfc.ErrJobCapReached)
	}
	return &rep, nil
}

// interrupt counts an item that will not run.
func (r *runner[R]) interrupt() {
	r.mu.Lock()
	r.rep.Interrupted++
	r.mu.Unlock()
}

// limiterStop is the run's error when the Limiter refused to wait while
// ctx was alive: with a deadline, the next start was past it.
func limiterStop(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil // the context's own error is reported
	}
	if _, ok := ctx.Deadline(); ok {
		return fmt.Errorf("pfc: bulk: the rate limit allows no further start before the context deadline: %w (%w)",
			context.DeadlineExceeded, err)
	}
	return fmt.Errorf("pfc: bulk: rate limiter: %w", err)
}

// checkItem reports an item that cannot be run; sameOutput is the ID of an
// earlier item with the same output path, if any. With Options.Source
// (Options.Sink), Src (Dst) must be an io/fs name, which is all a Sink is
// promised: refused here, before its job starts, not once the job is paid.
func (r *runner[R]) checkItem(it Item, seen map[string]struct{}, sameOutput string) error {
	var fe apierr.FieldErrors
	switch {
	case it.Src == "":
		fe.Add("SrcPath", "is required (item %q)", it.ID)
	case r.o.Source != nil && !fs.ValidPath(it.Src):
		fe.Add("SrcPath", "%q is not a name in the source (relative, slash-separated, no . or .. element) (item %q)", it.Src, it.ID)
	}
	switch {
	case it.Dst == "":
		fe.Add("DstPath", "is required (item %q)", it.ID)
	case r.o.Sink != nil && (!fs.ValidPath(it.Dst) || it.Dst == "."):
		fe.Add("DstPath", "%q is not a name in the sink (relative, slash-separated, no . or .. element) (item %q)", it.Dst, it.ID)
	}
	if _, dup := seen[it.ID]; dup {
		fe.Add("ID", "%q appears twice in the input", it.ID)
	}
	if sameOutput != "" && it.Dst != "" {
		// Both would be written to one file: one result would be lost,
		// and a resumed run would skip both.
		fe.Add("DstPath", "%q is also the output of item %q (item %q)", it.Dst, sameOutput, it.ID)
	}
	return fe.Err()
}

// exists reports an item's published output, in the sink or as a file.
func (r *runner[R]) exists(ctx context.Context, dst string) bool {
	if r.o.Sink != nil {
		ok, err := r.o.Sink.Exists(ctx, dst)
		return err == nil && ok
	}
	return fileExists(dst)
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// begin counts it in flight and returns its input's size; with ctx done
// it counts it interrupted instead (ok false).
func (r *runner[R]) begin(ctx context.Context, it Item) (size int64, ok bool) {
	if ctx.Err() != nil {
		r.interrupt()
		return 0, false
	}
	size = r.inputSize(it.Src)
	r.mu.Lock()
	r.inFlight++
	r.progressLocked()
	r.mu.Unlock()
	return size, true
}

// prepareDst makes the folder of dst, an item's output file, and removes
// the run's stale temporary files there once (see cleanDir). With a Sink,
// dst is a name in it: nothing local.
func (r *runner[R]) prepareDst(dst string) error {
	if r.o.Sink != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if r.clean {
		r.cleanDir(filepath.Dir(dst))
	}
	return nil
}

// do runs one item on a worker.
func (r *runner[R]) do(ctx context.Context, cancel context.CancelFunc, it Item) {
	size, ok := r.begin(ctx, it)
	if !ok {
		return
	}
	began := r.now()
	var v R
	var job startedJob // the item's job, once the service accepted it
	err := r.prepareDst(it.Dst)
	if err == nil {
		// The work's file functions name their temporary files after the
		// run (r.scope), and open only the listed input.
		it.Scope = r.scope
		if !it.Listed.IsZero() {
			s := &fileio.Scope{Src: it.Src, SrcID: it.Listed}
			if r.scope != nil {
				s.TempTag = r.scope.TempTag
			}
			it.Scope = s
		}
		v, err = r.o.Start(ctx, it, r.started(cancel, it, &job))
	}
	res := Result[R]{Item: it, Value: v, Err: err, Bytes: size, Duration: r.now().Sub(began)}
	if err != nil && ctx.Err() != nil {
		// Cancelled in flight: no record, a rerun does it again.
		r.mu.Lock()
		r.inFlight--
		r.rep.Interrupted++
		r.progressLocked()
		r.mu.Unlock()
		return
	}
	r.record(cancel, res, job.get())
}

// record appends the record of a finished item res and reports it; job,
// for a failed item, is the reference of its job, if one started: a
// rerun collects it rather than start another (see collect).
func (r *runner[R]) record(cancel context.CancelFunc, res Result[R], job json.RawMessage) {
	it, err := res.Item, res.Err
	rec := Record{ID: it.ID, Src: it.Src, Dst: it.Dst, Bytes: res.Bytes, Millis: res.Duration.Milliseconds(), Time: r.now().UTC()}
	if err != nil {
		res.Kind = r.kind(err)
		rec.Status, rec.Kind, rec.Error, rec.Job = StatusFailed, res.Kind, err.Error(), job
	} else {
		rec.Status = StatusDone
		if r.o.Summarize != nil {
			rec.Result = r.o.Summarize(res.Value)
		}
	}
	if r.mw != nil {
		if werr := r.mw.append(rec); werr != nil {
			r.fail(cancel, werr)
			return
		}
	}
	r.finish(res, true)
}

// fail stops the run on a manifest failure werr of an item in flight.
func (r *runner[R]) fail(cancel context.CancelFunc, werr error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = werr
	}
	r.inFlight--
	r.rep.Interrupted++
	r.mu.Unlock()
	cancel()
}

// cleanDir removes, once per output directory of the run, what a crash
// of an earlier run of the same manifest left there: the temporary files
// fileio.WriteFileAtomicScoped names ".<name>.<key>-<token>.<digits>.partial"
// (<name> cut short for a long one), key being this manifest's and token
// another run's. Those are provably dead: the run that made one held the
// manifest's lock, which this run holds now (r.clean). Other runs' files,
// of other manifests or of no manifest, are never touched. Every worker
// calls it before its work; this run's own files (its token) are kept.
// Failures are ignored (it is litter).
func (r *runner[R]) cleanDir(dir string) {
	v, ok := r.cleaned.Load(dir)
	if !ok {
		v, _ = r.cleaned.LoadOrStore(dir, new(sync.Once))
	}
	v.(*sync.Once).Do(func() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if deadTemp(e.Name(), r.tempKey, r.token) && e.Type().IsRegular() {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	})
}

// keyLen and tokenLen are the lengths, in hex digits, of a temporary
// name's manifest key and run token.
const keyLen, tokenLen = 16, 8

// manifestKey names the manifest in its runs' temporary files: a hash of
// its path with its symbolic links resolved, so that every name of one
// manifest gives the same key.
func manifestKey(path string) string {
	sum := sha256.Sum256([]byte(resolvePath(path)))
	return hex.EncodeToString(sum[:keyLen/2])
}

// newToken names one run in its temporary files.
func newToken() string {
	var b [tokenLen / 2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// deadTemp reports a name of the temporary files of a run of the
// manifest key other than the run token:
// ".<name>.<key>-<other token>.<digits>.partial".
func deadTemp(name, key, token string) bool {
	rest, ok := strings.CutSuffix(name, ".partial")
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 || i == len(rest)-1 || !allIn(rest[i+1:], "0123456789") {
		return false
	}
	rest = rest[:i]
	j := strings.LastIndexByte(rest, '.')
	if j <= 1 { // ".<name>." needs a name
		return false
	}
	tag := rest[j+1:]
	other, ok := strings.CutPrefix(tag, key+"-")
	return ok && len(key) == keyLen && len(other) == tokenLen && allIn(other, "0123456789abcdef") && other != token
}

// allIn reports a non-empty s made of chars only.
func allIn(s, chars string) bool {
	for _, c := range s {
		if !strings.ContainsRune(chars, c) {
			return false
		}
	}
	return s != ""
}

// kind classifies err with Options.Kind, falling back to DefaultKind.
func (r *runner[R]) kind(err error) string {
	if r.o.Kind != nil {
		if k := r.o.Kind(err); k != "" {
			return k
		}
	}
	return DefaultKind(err)
}

// finish counts a finished item and reports it.
func (r *runner[R]) finish(res Result[R], ran bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ran {
		r.inFlight--
		r.rep.Bytes += res.Bytes
	}
	if res.Collected {
		r.rep.Collected++
	}
	switch {
	case res.Skipped:
		r.rep.Skipped++
	case res.Err != nil:
		if res.Kind == "" {
			res.Kind = r.kind(res.Err)
		}
		r.rep.Failed++
		r.rep.Failures = append(r.rep.Failures, res)
	default:
		r.rep.Done++
		if r.o.Usage != nil {
			for k, v := range r.o.Usage(res.Value) {
				if r.rep.Usage == nil {
					r.rep.Usage = map[string]float64{}
				}
				r.rep.Usage[k] += v
			}
		}
	}
	if r.o.OnResult != nil {
		r.o.OnResult(res)
	}
	r.progressLocked()
}

// progressLocked calls OnProgress with the current snapshot; r.mu is held.
func (r *runner[R]) progressLocked() {
	if r.o.OnProgress == nil {
		return
	}
	p := Progress{
		Total: -1, Done: r.rep.Done, Failed: r.rep.Failed, Skipped: r.rep.Skipped,
		InFlight: r.inFlight, Bytes: r.rep.Bytes, Elapsed: r.now().Sub(r.start),
	}
	if r.o.Rate != nil {
		p.Rate = r.o.Rate()
	}
	if r.o.Total > 0 {
		p.Total = r.o.Total
		ran := p.Done + p.Failed
		if left := p.Total - ran - p.Skipped; ran > 0 && left > 0 {
			p.ETA = time.Duration(float64(p.Elapsed) / float64(ran) * float64(left))
		}
	}
	r.o.OnProgress(p)
}
