package bgcontainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/pfc"
)

// RemoveDir removes the background of every image under inDir
// (recursively; hidden files and outDir are left out) into a PNG at the
// same relative path under outDir, several at once, each through
// RemoveBackgroundFile (so each job is removed afterwards; the manifest
// lists any left on a lost replica as "leftJobs"). The manifest records
// each job submitted (process id, replica): a rerun collects and removes
// those, also those a cancelled run left. A failed file does not stop the run: see "Bulk runs" in package
// pfc. SubmitImage is never resent once it may have arrived.
func (c *Client) RemoveDir(ctx context.Context, inDir, outDir string, opts *SubmitOptions, b *pfc.BulkOptions[*Result]) (_ *pfc.BulkReport[*Result], err error) {
	run, err := bulk.DirRun(inDir, outDir, b, func(rel string) string {
		return strings.TrimSuffix(rel, filepath.Ext(rel)) + ".png"
	})
	if err != nil {
		return nil, err
	}
	return c.removeBulk(ctx, run, opts)
}

// RemoveAll removes the background of every item of items with opts,
// several at once; see RemoveDir. items is read as the run goes; with
// b.Manifest set the run is resumable (items are matched by ID).
func (c *Client) RemoveAll(ctx context.Context, items iter.Seq[pfc.BulkItem], opts *SubmitOptions, b *pfc.BulkOptions[*Result]) (_ *pfc.BulkReport[*Result], err error) {
	return c.removeBulk(ctx, bulk.AllRun(items, b), opts)
}

// removeBulk runs items through the shared runner with
// RemoveBackgroundFile as the work.
func (c *Client) removeBulk(ctx context.Context, run bulk.PublicRun[*Result], opts *SubmitOptions) (*pfc.BulkReport[*Result], error) {
	bo, manifest := run.Options, run.Settings.Manifest != ""
	var o SubmitOptions
	if opts != nil {
		o = *opts
	}
	if err := validateFlow(&o, bo.Flow); err != nil {
		return nil, err
	}
	return run.Run(ctx, bulk.Client[*Result, pfc.BulkResult[*Result]]{
		Work: func(ctx context.Context, it bulk.Item, started bulk.Started) (*Result, error) {
			oo := o // RemoveBackgroundFile names the file part after each item
			hook := func(processID, replica string) (bool, error) {
				return manifest, started.Ref(bulkJobRef{ProcessID: processID, Replica: replica})
			}
			if bo.Source == nil && bo.Sink == nil {
				return c.removeBackgroundFile(ctx, it.Scope, it.Src, it.Dst, &oo, bo.Flow, hook)
			}
			return c.removeStreamed(ctx, it, &oo, bo, hook)
		},
		Collect: func(ctx context.Context, it bulk.Item, ref json.RawMessage) (*Result, error) {
			return c.collectJob(ctx, it, ref, bo)
		},
		Summarize: summarizeResult, Kind: bulkKind, Redact: c.redact, Public: bulkResult,
		Rate: c.http.Rate, Observer: c.http.Observer(), Name: "bgcontainer.bulk",
	})
}

// removeStreamed is RemoveBackgroundFile from bo.Source (a file without
// it) to bo.Sink (a file without it): the upload streams from the source
// (a retry reads it again), and every download publishes or discards its
// output whole, so a redo on another replica is as safe as with files.
func (c *Client) removeStreamed(ctx context.Context, it bulk.Item, o *SubmitOptions, bo pfc.BulkOptions[*Result], started onStarted) (_ *Result, err error) {
	ctx, op := c.http.StartOp(ctx, "bgcontainer.RemoveBackgroundFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	in, size, err := bulk.OpenInput(ctx, it.Scope, bo.Source, it.Src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if o.FileName == "" {
		o.FileName = path.Base(filepath.ToSlash(it.Src))
	}
	return c.run(ctx, in, size, o, bo.Flow, false, started, func(ctx context.Context, dl *Client, id string) (n int64, err error) {
		err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
			n, err = dl.DownloadImage(ctx, id, w)
			return err
		})
		return n, err
	})
}

// bulkSummary is the "result" of a done file's manifest record.
type bulkSummary struct {
	ProcessID string `json:"processId"`
	Bytes     int64  `json:"pngBytes"`
	// Replica is the replica that ran the job (a client of several).
	Replica string `json:"replica,omitempty"`
	// Left are the jobs of runs abandoned on a replica found down that
	// could not be removed (Result.Abandoned): still there, to remove.
	Left []leftSummary `json:"leftJobs,omitempty"`
}

// leftSummary is a job a bulk item left on a replica.
type leftSummary struct {
	ProcessID string `json:"processId"`
	Replica   string `json:"replica"`
}

func summarizeResult(r *Result) json.RawMessage {
	if r == nil {
		return nil
	}
	s := bulkSummary{Bytes: r.Bytes, Replica: r.Replica}
	if r.Job != nil {
		s.ProcessID = r.Job.ProcessID
	}
	for _, a := range r.Abandoned {
		if a.Removed == nil && a.Job != nil {
			s.Left = append(s.Left, leftSummary{ProcessID: a.Job.ProcessID, Replica: a.Replica})
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// bulkKind classifies the errors of RemoveBackgroundFile for the manifest
// that are not the shared classification's (see bulk.Client.Kind).
func bulkKind(err error) string {
	switch {
	case errors.Is(err, pfc.ErrJobFailed):
		return "processing_failed"
	case errors.Is(err, pfc.ErrWaitTimeout):
		return "wait_timeout"
	case errors.Is(err, ErrNotActivated):
		return "not_activated"
	}
	return ""
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Result]) pfc.BulkResult[*Result] {
	out := bulk.PublicResult(r)
	switch {
	case r.Value != nil:
		if r.Value.Job != nil {
			out.JobID = r.Value.Job.ProcessID
		}
	case r.Record != nil:
		var s bulkSummary
		if json.Unmarshal(r.Record.Result, &s) == nil {
			out.JobID = s.ProcessID
		}
	}
	return out
}

// bulkJobRef is the "job" of a file's "started" manifest record: the
// process id and the Key of the replica running it (empty for a client of
// one base URL).
type bulkJobRef struct {
	ProcessID string `json:"processId"`
	Replica   string `json:"replica,omitempty"`
}

// collectJob finishes a bulk file from the job an earlier run submitted
// (ref, a bulkJobRef): it waits for the job, downloads its PNG to it.Dst
// atomically and then removes the job, as the flow does (unless
// flow.KeepJob), also when it failed. A job the container no longer
// knows (ErrJobNotFound), that failed (pfc.ErrJobFailed), or whose
// replica is no longer in the client's fleet gives an error matching
// pfc.ErrJobForgotten: the file is processed again, unless its output was
// written since (the runner's rule: the flow removed the job after
// writing it, and the run stopped before its record).
func (c *Client) collectJob(ctx context.Context, it bulk.Item, ref json.RawMessage, bo pfc.BulkOptions[*Result]) (res *Result, err error) {
	flow := bo.Flow
	var r bulkJobRef
	if json.Unmarshal(ref, &r) != nil || r.ProcessID == "" {
		return nil, fmt.Errorf("pfc: recorded job of %q unreadable: %w", c.quote(it.ID, apierr.MaxQuotedName), pfc.ErrJobForgotten)
	}
	pid := c.quote(r.ProcessID, apierr.MaxQuotedID)
	var f pfc.FlowOptions
	if flow != nil {
		f = *flow
	}
	rep, why := c.reps.Recorded(r.ProcessID, r.Replica)
	if why != "" {
		return nil, fmt.Errorf("pfc: job %s: %s: %w", pid, why, pfc.ErrJobForgotten)
	}
	res = &Result{Job: &Job{ProcessID: r.ProcessID}}
	if rep != nil {
		res.Replica = rep.URL
	}
	gone := false // the container does not know the job: nothing to remove
	if !f.KeepJob {
		defer func() {
			// A cancelled run leaves the job recorded, for the next.
			if !gone && ctx.Err() == nil {
				res.Removed, res.RemoveErr = c.cleanup(ctx, r.ProcessID, cleanupTimeout(&f))
			}
		}()
	}
	dl := c
	if f.MaxDownloadSize > 0 {
		cc := *c
		cc.maxDownload = f.MaxDownloadSize
		dl = &cc
	}
	if res.Check, err = c.WaitImage(ctx, r.ProcessID, f.Wait); err == nil {
		err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
			var err error
			res.Bytes, err = dl.DownloadImage(ctx, r.ProcessID, w)
			return err
		})
	}
	gone = errors.Is(err, ErrJobNotFound)
	if gone || errors.Is(err, pfc.ErrJobFailed) || errors.Is(err, ErrInvalidProcessID) {
		return res, fmt.Errorf("pfc: job %s: %w: %w", pid, pfc.ErrJobForgotten, err)
	}
	return res, err
}
