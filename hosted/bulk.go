package hosted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/pfc"
)

// BulkItem is one file of a bulk run: SrcPath is corrected into DstPath.
type BulkItem struct {
	// ID identifies the item in the manifest and must be unique within a
	// run; empty means SrcPath. CorrectDir uses the path relative to the
	// input directory.
	ID string
	// SrcPath is the file to correct.
	SrcPath string
	// DstPath is where the corrected file goes (written atomically; its
	// directory is created if needed).
	DstPath string
}

// BulkOptions configures CorrectDir and CorrectAll. The zero value (or
// nil) corrects 4 files at once, without rate limit, with the client's
// polling defaults.
type BulkOptions struct {
	// Concurrency bounds the files in flight (0: 4). Each file in flight
	// holds one upload, one job or one download at a time.
	Concurrency int
	// RateLimit, if positive, bounds how many files start per second on
	// average (a token bucket), for accounts with a request quota. Each
	// file makes about five requests plus its status polls.
	RateLimit float64
	// RateBurst is the token bucket's size: how many files may start at
	// once after a pause (0: 1).
	RateBurst int
	// Manifest is the path of the run's manifest (JSON Lines), which makes
	// the run resumable: a rerun with the same manifest skips the files
	// done before and corrects the others, the failed ones included.
	// CorrectDir uses <outDir>/.pfc-bulk.jsonl when it is empty;
	// CorrectAll keeps no manifest when it is empty. One run at a time
	// per manifest.
	Manifest string
	// Exts are the file extensions CorrectDir takes (case-insensitive,
	// with the dot); nil means .jpg, .jpeg and .png. Add ".mp4" and ".mov"
	// to correct videos too.
	Exts []string
	// OnProgress, if set, receives a snapshot each time a file starts or
	// finishes. Calls are serialised; keep it quick.
	OnProgress func(BulkProgress)
	// OnResult, if set, receives the outcome of every file as it finishes,
	// skipped files included. Calls are serialised with OnProgress.
	OnResult func(BulkResult)
	// Call are the options of each file's CorrectFile call (WithWait,
	// WithDownloadLimit ...). A WithProgress callback runs on the
	// goroutines of several files at once.
	Call []CallOption
}

// BulkProgress is a snapshot of a bulk run.
type BulkProgress struct {
	// Total is the number of files, or -1 when unknown (CorrectAll).
	Total int
	// Done, Failed and Skipped count the files corrected in this run,
	// failed in this run, and skipped as corrected by an earlier run.
	Done, Failed, Skipped int
	// InFlight counts the files being corrected.
	InFlight int
	// Bytes is the input size of the files done or failed in this run.
	Bytes int64
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// ETA estimates the time left from this run's pace; 0 when unknown.
	ETA time.Duration
}

// BulkResult is the outcome of one file of a bulk run.
type BulkResult struct {
	// Item is the file, its ID filled in.
	Item BulkItem
	// Job is the job record: the COMPLETED one for a corrected file, the
	// FAILED or REJECTED one with a *JobError, the last one seen with a
	// *pfc.WaitTimeoutError, nil when the file failed before a job ended or
	// was skipped.
	Job *Job
	// JobID is the job's id, also for a skipped file (from the manifest)
	// and for a wait that timed out (the job may still complete: Wait or
	// GetJob can pick it up).
	JobID string
	// Err is nil for a corrected or skipped file, else the error
	// CorrectFile returned: a *JobError, *pfc.APIError, *pfc.ValidationError,
	// *pfc.WaitTimeoutError, *pfc.DownloadTooLargeError or a file error, usable
	// with errors.As and errors.Is.
	Err error
	// Kind classifies Err, as the manifest records it: "job_rejected",
	// "job_failed", "wait_timeout", "download_too_large",
	// "invalid_parameter", "http_<status>", "file", "deadline" or "error".
	Kind string
	// Skipped reports a file corrected by an earlier run of the manifest.
	Skipped bool
	// Bytes is the input's size.
	Bytes int64
	// Duration is how long the file took.
	Duration time.Duration
}

// BulkReport sums up a bulk run.
type BulkReport struct {
	// Total is the number of files seen.
	Total int
	// Done, Failed and Skipped count the files corrected, failed, and
	// skipped as corrected by an earlier run.
	Done, Failed, Skipped int
	// Interrupted counts the files not finished when the run was stopped
	// (cancelled in flight or not started); a rerun corrects them.
	Interrupted int
	// Bytes is the input size of the files done or failed in this run.
	Bytes int64
	// Elapsed is how long the run took.
	Elapsed time.Duration
	// Failures lists every failed file with its error, in the order they
	// failed.
	Failures []BulkResult
}

// CorrectDir corrects every image under inDir (recursively, in lexical
// order; hidden files and outDir itself are left out) into the same
// relative path under outDir, with opts (see CorrectFile), several at
// once. The output's extension follows opts.OutputType (and becomes .png
// when the background is removed without an OutputType). The run is
// resumable: it keeps a manifest, <outDir>/.pfc-bulk.jsonl unless
// bulk.Manifest says otherwise, and a rerun after an interruption (a
// cancelled context, Ctrl-C, a crash) skips the files already corrected.
//
// A file that fails does not stop the run: it is listed in
// BulkReport.Failures with its error, and the run goes on. The error
// result is non-nil only when the run itself stopped: ctx's error when ctx
// ended, or one matching context.DeadlineExceeded when the rate limit
// leaves no start before ctx's deadline (the report says how far it got),
// or a problem with the options, inDir or the manifest. Two files whose
// outputs would be one file (photo.jpg and photo.png, both to photo.png)
// are not both written: the later fails with kind invalid_parameter. Each request is retried by the client as usual
// (WithRetries); the bulk layer never repeats a file within a run.
func (c *Client) CorrectDir(ctx context.Context, inDir, outDir string, opts *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	bo := derefBulk(b)
	s := bo.settings()
	items, total, err := bulk.DirItems(inDir, outDir, &s, outputName(opts))
	if err != nil {
		return nil, err
	}
	return c.correctBulk(ctx, items, total, opts, bo, s)
}

// CorrectAll corrects every item of items with opts (see CorrectFile),
// several at once; see CorrectDir for failures, the error result and
// retries. items is read as the run goes, so it may be long or generated;
// with bulk.Manifest set the run is resumable (items are matched by ID).
func (c *Client) CorrectAll(ctx context.Context, items iter.Seq[BulkItem], opts *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	bo := derefBulk(b)
	return c.correctBulk(ctx, bulk.Items(items, BulkItem.item), 0, opts, bo, bo.settings())
}

// correctBulk runs items through the shared runner with CorrectFile as the
// work.
func (c *Client) correctBulk(ctx context.Context, items iter.Seq[bulk.Item], total int, opts *CorrectionOptions, bo BulkOptions, s bulk.Settings) (*BulkReport, error) {
	// Check everything once, before the first file: a bad option is one
	// error, not one failure per file.
	o := opts.Clone()
	if err := o.ValidateForUpload(); err != nil {
		return nil, err
	}
	if _, _, err := c.callSettings(bo.Call); err != nil {
		return nil, err
	}
	rep, failures, err := bulk.RunClient(ctx, items, total, bulk.Client[*Job, BulkResult]{
		Settings: s,
		Work: func(ctx context.Context, it bulk.Item) (*Job, error) {
			return c.CorrectFile(ctx, it.Src, it.Dst, o, bo.Call...)
		},
		Summarize: summarizeJob, Kind: bulkKind, Public: bulkResult,
		OnProgress: bo.progress(), OnResult: bo.OnResult,
	})
	if rep == nil {
		return nil, err
	}
	return &BulkReport{
		Total: rep.Total, Done: rep.Done, Failed: rep.Failed, Skipped: rep.Skipped,
		Interrupted: rep.Interrupted, Bytes: rep.Bytes, Elapsed: rep.Elapsed, Failures: failures,
	}, err
}

func derefBulk(b *BulkOptions) BulkOptions {
	if b == nil {
		return BulkOptions{}
	}
	return *b
}

// settings are the options the shared runner reads.
func (b BulkOptions) settings() bulk.Settings {
	return bulk.Settings{Concurrency: b.Concurrency, RateLimit: b.RateLimit, RateBurst: b.RateBurst, Manifest: b.Manifest, Exts: b.Exts}
}

// progress adapts OnProgress to the runner's snapshots; nil when unset.
func (b BulkOptions) progress() func(bulk.Progress) {
	if fn := b.OnProgress; fn != nil {
		return func(p bulk.Progress) { fn(BulkProgress(p)) }
	}
	return nil
}

// item is the runner's form of it.
func (it BulkItem) item() bulk.Item { return bulk.Item{ID: it.ID, Src: it.SrcPath, Dst: it.DstPath} }

// outputName returns CorrectDir's renaming of outputs for opts.
func outputName(opts *CorrectionOptions) func(string) string {
	ext := ""
	if opts != nil {
		switch strings.ToLower(string(opts.OutputType)) {
		case string(OutputJPG):
			ext = ".jpg"
		case string(OutputPNG):
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

// bulkKind classifies the errors of CorrectFile for the manifest.
func bulkKind(err error) string {
	var (
		je *JobError
		ae *pfc.APIError
		ve *pfc.ValidationError
		te *pfc.WaitTimeoutError
		de *pfc.DownloadTooLargeError
	)
	switch {
	case errors.As(err, &je):
		if errors.Is(err, ErrJobRejected) {
			return "job_rejected"
		}
		return "job_failed"
	case errors.As(err, &te):
		return "wait_timeout"
	case errors.As(err, &de):
		return "download_too_large"
	case errors.As(err, &ve):
		return "invalid_parameter"
	case errors.As(err, &ae):
		return fmt.Sprintf("http_%d", ae.StatusCode)
	}
	return "" // the shared classification
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Job]) BulkResult {
	out := BulkResult{
		Item: BulkItem{ID: r.Item.ID, SrcPath: r.Item.Src, DstPath: r.Item.Dst},
		Job:  r.Value, Err: r.Err, Kind: r.Kind, Skipped: r.Skipped, Bytes: r.Bytes, Duration: r.Duration,
	}
	var (
		je *JobError
		te *pfc.WaitTimeoutError
	)
	switch {
	case out.Job != nil:
	case errors.As(r.Err, &je):
		out.Job = je.Job
	case errors.As(r.Err, &te):
		// The job may still complete: its id lets the caller fetch it.
		out.Job, _ = te.Last.(*Job)
		out.JobID = te.JobID
	}
	switch {
	case out.Job != nil:
		out.JobID = out.Job.ID
	case r.Record != nil:
		var s bulkJobSummary
		if json.Unmarshal(r.Record.Result, &s) == nil {
			out.JobID = s.JobID
		}
	}
	return out
}
