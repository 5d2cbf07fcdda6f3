package hosted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CorrectDir corrects every image under inDir (recursively; hidden files
// and outDir are left out) into the same relative path under outDir with
// opts, several at once, each through CorrectFile. The output's extension
// follows opts.OutputType (.png for a removed background without one).
// The run is resumable through its manifest, which records each job
// started (id, upload key): a rerun collects those jobs. A failed file
// does not stop it: see "Bulk runs" in package pfc.
func (c *Client) CorrectDir(ctx context.Context, inDir, outDir string, opts *CorrectionOptions, b *pfc.BulkOptions[*Job]) (_ *pfc.BulkReport[*Job], err error) {
	run, err := bulk.DirRun(inDir, outDir, b, outputName(opts))
	if err != nil {
		return nil, err
	}
	return c.correctBulk(ctx, run, opts)
}

// CorrectAll corrects every item of items with opts (see CorrectFile),
// several at once; see CorrectDir for failures, the error result and
// retries. items is read as the run goes, so it may be long or generated;
// with b.Manifest set the run is resumable (items are matched by ID).
func (c *Client) CorrectAll(ctx context.Context, items iter.Seq[pfc.BulkItem], opts *CorrectionOptions, b *pfc.BulkOptions[*Job]) (_ *pfc.BulkReport[*Job], err error) {
	return c.correctBulk(ctx, bulk.AllRun(items, b), opts)
}

// correctBulk runs items through the shared runner with CorrectFile as the
// work.
func (c *Client) correctBulk(ctx context.Context, run bulk.PublicRun[*Job], opts *CorrectionOptions) (*pfc.BulkReport[*Job], error) {
	// Check everything once, before the first file: a bad option is one
	// error, not one failure per file.
	o, bo := opts.Clone(), run.Options
	if err := c.validateForUpload(o); err != nil {
		return nil, err
	}
	if _, _, err := c.flowSettings(bo.Flow); err != nil {
		return nil, err
	}
	return run.Run(ctx, bulk.Client[*Job, pfc.BulkResult[*Job]]{
		Work: func(ctx context.Context, it bulk.Item, started bulk.Started) (*Job, error) {
			hook := func(jobID, fileKey string) error {
				return started.Ref(bulkJobRef{JobID: jobID, FileKey: fileKey})
			}
			if bo.Source == nil && bo.Sink == nil {
				return c.correctFile(ctx, it.Scope, it.Src, it.Dst, o, bo.Flow, hook)
			}
			return c.correctStreamed(ctx, it, o, bo, hook)
		},
		Collect: func(ctx context.Context, it bulk.Item, ref json.RawMessage) (*Job, error) {
			return c.collectJob(ctx, it, ref, bo)
		},
		Usage:     c.jobUsage,
		Summarize: summarizeJob, Kind: bulkKind, Redact: c.http.Redact, Public: bulkResult,
		Rate: c.http.Rate, Observer: c.http.Observer(), Name: "hosted.bulk",
	})
}

// correctStreamed is CorrectFile from bo.Source (a file without it) to
// bo.Sink (a file without it): the upload streams from the source (a
// retry reads it again) and the output is published whole or not at all.
func (c *Client) correctStreamed(ctx context.Context, it bulk.Item, opts *CorrectionOptions, bo pfc.BulkOptions[*Job], started onStarted) (job *Job, err error) {
	ctx, op := c.http.StartOp(ctx, "hosted.CorrectFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	in, size, err := bulk.OpenInput(ctx, it.Scope, bo.Source, it.Src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	o := opts.Clone()
	if o.FileType == "" {
		o.FileType = fileTypeOf(it.Src)
	}
	err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
		var err error
		job, err = c.correct(ctx, in, size, o, w, bo.Flow, started)
		return err
	})
	return job, err
}

// outputName returns CorrectDir's renaming of outputs for opts.
func outputName(opts *CorrectionOptions) func(string) string {
	ext := ""
	if opts != nil {
		switch opts.outputFormat() {
		case pfc.OutputJPEG:
			ext = ".jpg"
		case pfc.OutputPNG:
			ext = ".png"
		case "":
			if opts.RemoveBackground {
				ext = ".png"
			}
		}
	}
	return func(rel string) string {
		old := filepath.Ext(rel)
		if ext == "" || fileTypeOf(rel) == FileTypeVideo || strings.EqualFold(old, ext) ||
			(ext == ".jpg" && strings.EqualFold(old, ".jpeg")) {
			return rel
		}
		return strings.TrimSuffix(rel, old) + ext
	}
}

// bulkJobSummary is the "result" of a done file's manifest record.
type bulkJobSummary struct {
	JobID string `json:"jobId"`
}

func summarizeJob(j *Job) json.RawMessage {
	if j == nil {
		return nil
	}
	b, _ := json.Marshal(bulkJobSummary{JobID: j.ID})
	return b
}

// bulkKind classifies the errors of CorrectFile for the manifest that
// are not the shared classification's (see bulk.Client.Kind).
func bulkKind(err error) string {
	var (
		je *JobError
		te *pfc.WaitTimeoutError
	)
	switch {
	case errors.As(err, &je):
		if errors.Is(err, ErrJobRejected) {
			return "job_rejected"
		}
		return "job_failed"
	case errors.As(err, &te):
		return "wait_timeout"
	}
	return "" // the shared classification
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Job]) pfc.BulkResult[*Job] {
	out := bulk.PublicResult(r)
	job := r.Value
	var (
		je *JobError
		te *pfc.WaitTimeoutError
	)
	switch {
	case job != nil:
	case errors.As(r.Err, &je):
		job = je.Job
	case errors.As(r.Err, &te):
		// The job may still complete: its id lets the caller fetch it.
		job, _ = te.Last.(*Job)
		out.JobID = te.JobID
	}
	switch {
	case job != nil:
		out.Result, out.JobID = job, job.ID
	case r.Record != nil:
		var s bulkJobSummary
		if json.Unmarshal(r.Record.Result, &s) == nil {
			out.JobID = s.JobID
		}
	}
	return out
}

// bulkJobRef is the "job" of a file's "started" manifest record: the job
// id and the key of the uploaded file.
type bulkJobRef struct {
	JobID   string `json:"jobId"`
	FileKey string `json:"fileKey,omitempty"`
}

// collectJob finishes a bulk file from the job an earlier run started
// (ref, a bulkJobRef): it waits for the job and downloads its result to
// it.Dst (or the run's Sink) atomically. A job the service no longer knows (404 or 410) or
// that FAILED or was REJECTED gives an error matching
// pfc.ErrJobForgotten: the file is processed again.
func (c *Client) collectJob(ctx context.Context, it bulk.Item, ref json.RawMessage, bo pfc.BulkOptions[*Job]) (job *Job, err error) {
	var r bulkJobRef
	if json.Unmarshal(ref, &r) != nil || r.JobID == "" {
		return nil, fmt.Errorf("pfc: recorded job of %q unreadable: %w", c.quote(it.ID, 200), pfc.ErrJobForgotten)
	}
	pollOpts, limit, err := c.flowSettings(bo.Flow)
	if err != nil {
		return nil, err
	}
	err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
		var err error
		if job, err = c.wait(ctx, r.JobID, pollOpts); err != nil {
			return err
		}
		_, err = c.download(ctx, job, w, limit)
		return err
	})
	var je *JobError
	if errors.Is(err, pfc.ErrNotFound) || errors.As(err, &je) {
		return job, fmt.Errorf("pfc: job %s: %w: %w", c.quote(r.JobID, apierr.MaxQuotedMessage), pfc.ErrJobForgotten, err)
	}
	return job, err
}

// jobUsage is the billing counters of a done file's job, by their JSON
// names; the size class counts as "size:<class>" (the service's text,
// redacted and cut short).
func (c *Client) jobUsage(j *Job) map[string]float64 {
	if j == nil || j.Usage == nil {
		return nil
	}
	b, err := json.Marshal(j.Usage)
	if err != nil {
		return nil
	}
	var fields map[string]any
	if json.Unmarshal(b, &fields) != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range fields {
		switch v := v.(type) {
		case float64:
			out[k] = v
		case string:
			if v != "" {
				out["size:"+c.quote(v, apierr.MaxQuotedValue)] = 1
			}
		}
	}
	return out
}
