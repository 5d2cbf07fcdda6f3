package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
)

// task is one unit of a worker: an item to do, or (job set) an item
// whose job an earlier run recorded at time at, to collect.
type task struct {
	it  Item
	job json.RawMessage
	at  time.Time
}

// maxPending bounds the items of an input of unknown size that wait for
// the collection of the recorded jobs (see run).
const maxPending = 1 << 16

// startedJob holds the reference of an item's latest job.
type startedJob struct {
	mu  sync.Mutex
	ref json.RawMessage
}

func (j *startedJob) set(ref json.RawMessage) {
	j.mu.Lock()
	j.ref = ref
	j.mu.Unlock()
}

func (j *startedJob) get() json.RawMessage {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ref
}

// started returns the hook the work of it calls once the service accepted
// its job: it counts the job, keeps its reference in last and, with a
// manifest, appends and fsyncs a StatusStarted record with it before the
// work goes on. A job without a reference (nil: nothing a rerun could
// collect) is counted only. A write that fails stops the run (cancel), as
// a failed record does.
func (r *runner[R]) started(cancel context.CancelFunc, it Item, last *startedJob) Started {
	return func(job json.RawMessage) error {
		r.mu.Lock()
		r.rep.Started++
		r.mu.Unlock()
		if len(job) == 0 {
			return nil
		}
		last.set(job)
		if r.mw == nil {
			return nil
		}
		// The wall clock (not Options.Now): a rerun compares it with the
		// output's modification time (see collect).
		rec := Record{ID: it.ID, Src: it.Src, Dst: it.Dst, Status: StatusStarted, Job: job, Time: time.Now().UTC()}
		if err := r.mw.append(rec); err != nil {
			r.mu.Lock()
			if r.fatal == nil {
				r.fatal = err
			}
			r.mu.Unlock()
			cancel()
			return err
		}
		return nil
	}
}

// recordedJobs returns the records of the items whose latest state is a job
// started, with its reference, by ID; nil without Options.Collect.
func (r *runner[R]) recordedJobs() map[string]Record {
	if r.o.Collect == nil {
		return nil
	}
	m := map[string]Record{}
	for id, rec := range r.prior {
		if (rec.Status == StatusStarted || rec.Status == StatusFailed) && len(rec.Job) > 0 {
			if rec.Status == StatusFailed {
				rec.Time = time.Time{} // the failed work wrote no output
			}
			m[id] = rec
		}
	}
	return m
}

// reserve counts a start against Options.MaxStarts; false (the item is
// counted not started) at the cap.
func (r *runner[R]) reserve() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.o.MaxStarts > 0 && r.starts >= r.o.MaxStarts {
		r.capped = true
		r.rep.NotStarted++
		return false
	}
	r.starts++
	return true
}

// leave counts n items pulled that will not start: not started at the
// cap, else interrupted.
func (r *runner[R]) leave(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.capped {
		r.rep.NotStarted += n
	} else {
		r.rep.Interrupted += n
	}
}

// redo starts, on the calling worker, the item of a forgotten job; while
// the run holds new starts (see run), it is deferred to their release.
func (r *runner[R]) redo(ctx context.Context, cancel context.CancelFunc, it Item) {
	r.mu.Lock()
	if r.holding {
		r.deferred = append(r.deferred, it)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if !r.reserve() {
		return
	}
	if r.o.Limiter != nil {
		if err := r.o.Limiter.Wait(ctx); err != nil {
			r.interrupt()
			return
		}
	}
	r.do(ctx, cancel, it)
}

// collect finishes t.it from the job an earlier run started (t.job) on a
// worker: done is recorded as any done item; a forgotten job
// (pfc.ErrJobForgotten) is counted in Redone and its item started again
// (redo), unless the output was written since the job was recorded (the work
// writes it last, atomically: the run stopped after that, before the
// record, and the service has since dropped the job; see publishedSince):
// then it is done;
// another failure is reported but not recorded, so that the job's started
// record stays and a rerun collects it again rather than paying for a
// new one.
func (r *runner[R]) collect(ctx context.Context, cancel context.CancelFunc, t task) {
	defer r.collects.Done() // after a redo is deferred
	it := t.it
	size, ok := r.begin(ctx, it)
	if !ok {
		return
	}
	began := r.now()
	var v R
	err := r.prepareDst(it.Dst)
	if err == nil {
		// The download's temporary file is named after the run, as the
		// work's are, so that a rerun removes it after a crash.
		it.Scope = r.scope
		v, err = r.o.Collect(ctx, it, t.job)
	}
	if errors.Is(err, pfc.ErrJobForgotten) && ctx.Err() == nil && r.publishedSince(ctx, it.Dst, t.at) {
		err = nil
	}
	res := Result[R]{Item: it, Value: v, Err: err, Bytes: size, Duration: r.now().Sub(began), Collected: true}
	switch {
	case err != nil && ctx.Err() != nil:
		r.mu.Lock()
		r.inFlight--
		r.rep.Interrupted++
		r.progressLocked()
		r.mu.Unlock()
	case errors.Is(err, pfc.ErrJobForgotten):
		r.mu.Lock()
		r.inFlight--
		r.rep.Redone++
		r.progressLocked()
		r.mu.Unlock()
		r.redo(ctx, cancel, it)
	case err != nil:
		r.finish(res, true)
	default:
		r.record(cancel, res, nil)
	}
}

// plan is Run with Options.DryRun: it reads the manifest without writing
// it, sorts every item into Plan's lists and calls no work.
func (r *runner[R]) plan(ctx context.Context, items iter.Seq[Item]) (*Report[R], error) {
	r.start = r.now()
	prior := map[string]Record{}
	if r.o.Manifest != "" {
		var err error
		if prior, err = peekManifest(r.o.Manifest); err != nil {
			return nil, err
		}
	}
	rep := &Report[R]{Plan: &Plan[R]{}, Shard: r.o.Shard}
	p := rep.Plan
	seen := map[string]struct{}{}
	outputs := map[string]string{}
	keys := newOutputKeys()
	for it := range items {
		if ctx.Err() != nil {
			rep.Elapsed = r.now().Sub(r.start)
			return rep, context.Cause(ctx)
		}
		if it.ID == "" {
			it.ID = it.Src
		}
		if !r.o.Shard.Has(it.ID) {
			continue
		}
		rep.Total++
		dst := path.Clean(it.Dst) // a sink's name
		if r.o.Sink == nil {
			dst = keys.key(it.Dst)
		}
		if err := r.checkItem(it, seen, outputs[dst]); err != nil {
			p.Refused = append(p.Refused, Result[R]{Item: it, Err: err, Kind: "invalid_parameter"})
			continue
		}
		seen[it.ID] = struct{}{}
		outputs[dst] = it.ID
		rec, ok := prior[it.ID]
		// In the order of run: done, then a recorded job, then an
		// existing output (SkipExisting).
		switch {
		case ok && rec.Status == StatusDone && r.exists(ctx, it.Dst):
			rep.Skipped++
			p.Done = append(p.Done, it)
		case ok && (rec.Status == StatusStarted || rec.Status == StatusFailed) && len(rec.Job) > 0 && r.o.Collect != nil:
			p.Collect = append(p.Collect, it)
		case r.o.SkipExisting && r.exists(ctx, it.Dst):
			rep.Skipped++
			p.Done = append(p.Done, it)
		default:
			f, err := openPlanned(ctx, r.o.Source, it.Src)
			if err != nil {
				p.Refused = append(p.Refused, Result[R]{Item: it, Err: err, Kind: r.kind(err)})
				continue
			}
			f.Close()
			p.Process = append(p.Process, it)
		}
	}
	if m := r.o.MaxStarts; m > 0 && len(p.Process) > m {
		rep.NotStarted = len(p.Process) - m
	}
	rep.Elapsed = r.now().Sub(r.start)
	return rep, nil
}

// publishedSince reports an output of the item published at or after t
// (see collect): a file's modification time says so; a Sink keeps no
// time, so its output counts only under Options.SkipExisting, which takes
// any existing output as done.
func (r *runner[R]) publishedSince(ctx context.Context, dst string, t time.Time) bool {
	if r.o.Sink != nil {
		return r.o.SkipExisting && r.exists(ctx, dst)
	}
	return writtenSince(dst, t)
}

// inputSize is the size of the input src (in Options.Source, if set); 0
// when unknown.
func (r *runner[R]) inputSize(src string) int64 {
	if r.o.Source != nil {
		if st, err := fs.Stat(r.o.Source, src); err == nil && st != nil {
			return max(st.Size(), 0)
		}
		return 0
	}
	if st, err := os.Stat(src); err == nil {
		return st.Size()
	}
	return 0
}

// writtenSince reports a regular file at path modified at or after t, to
// the second (file systems keep coarser times); false for a zero t.
func writtenSince(path string, t time.Time) bool {
	st, err := os.Stat(path)
	return err == nil && !t.IsZero() && st.Mode().IsRegular() && !st.ModTime().Before(t.Truncate(time.Second))
}

// openPlanned opens an item's input as the work would, naming the item's
// field (SrcPath) in the error of a file that cannot be opened.
func openPlanned(ctx context.Context, source fs.FS, src string) (io.Closer, error) {
	if source == nil {
		f, _, err := fileio.OpenParamScoped(nil, "SrcPath", src)
		return f, err
	}
	f, _, err := OpenInput(ctx, nil, source, src)
	return f, err
}
