package bgcontainer

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
)

// BulkItem is one file of a bulk run: the background of SrcPath is removed
// into DstPath (a PNG).
type BulkItem struct {
	// ID identifies the item in the manifest and must be unique within a
	// run; empty means SrcPath. RemoveDir uses the path relative to the
	// input directory.
	ID string
	// SrcPath is the image (JPEG or PNG).
	SrcPath string
	// DstPath is where the PNG goes (written atomically; its directory is
	// created if needed).
	DstPath string
}

// BulkOptions configures RemoveDir and RemoveAll. The zero value (or nil)
// processes 4 files at once without rate limit.
type BulkOptions struct {
	// Concurrency bounds the files in flight (0: 4); the container
	// queues what its engines cannot take at once.
	Concurrency int
	// RateLimit, if positive, bounds how many files start per second on
	// average (a token bucket).
	RateLimit float64
	// RateBurst is the token bucket's size (0: 1).
	RateBurst int
	// Manifest is the path of the run's manifest (JSON Lines), which makes
	// the run resumable: a rerun with the same manifest skips the files
	// done before and processes the others, the failed ones included.
	// RemoveDir uses <outDir>/.pfc-bulk.jsonl when it is empty; RemoveAll
	// keeps no manifest when it is empty. One run at a time per manifest.
	Manifest string
	// Exts are the file extensions RemoveDir takes (case-insensitive, with
	// the dot); nil means .jpg, .jpeg and .png.
	Exts []string
	// OnProgress, if set, receives a snapshot each time a file starts or
	// finishes. Calls are serialised; keep it quick.
	OnProgress func(BulkProgress)
	// OnResult, if set, receives the outcome of every file as it finishes,
	// skipped files included. Calls are serialised with OnProgress.
	OnResult func(BulkResult)
}

// BulkProgress is a snapshot of a bulk run.
type BulkProgress struct {
	// Total is the number of files, or -1 when unknown (RemoveAll).
	Total int
	// Done, Failed and Skipped count the files processed in this run,
	// failed in this run, and skipped as done by an earlier run.
	Done, Failed, Skipped int
	// InFlight counts the files being processed.
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
	// Result is what RemoveBackgroundFile did (non-nil whenever a job was
	// submitted, also with an error); nil when skipped.
	Result *Result
	// ProcessID is the container's job id, also for a skipped file (from
	// the manifest); empty when no job was submitted.
	ProcessID string
	// Err is nil for a processed or skipped file, else the error of
	// RemoveBackgroundFile: a *JobError, *WaitTimeoutError,
	// *LicenseError, *Error, *APIError, *ValidationError,
	// *DownloadTooLargeError or a file error, usable with errors.As and
	// errors.Is.
	Err error
	// Kind classifies Err, as the manifest records it: "processing_failed",
	// "wait_timeout", "not_activated", "download_too_large",
	// "invalid_parameter", "http_<status>", "file", "deadline" or "error".
	Kind string
	// Skipped reports a file done by an earlier run of the manifest.
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
	// Done, Failed and Skipped count the files processed, failed, and
	// skipped as done by an earlier run.
	Done, Failed, Skipped int
	// Interrupted counts the files not finished when the run was stopped;
	// a rerun processes them.
	Interrupted int
	// Bytes is the input size of the files done or failed in this run.
	Bytes int64
	// Elapsed is how long the run took.
	Elapsed time.Duration
	// Failures lists every failed file with its error, in the order they
	// failed.
	Failures []BulkResult
}

// RemoveDir removes the background of every image under inDir
// (recursively, in lexical order; hidden files and outDir itself are left
// out) into a PNG at the same relative path under outDir (extension
// .png), with opts (see RemoveBackgroundFile: each job is removed from
// the container afterwards), several at once. The run is resumable: it
// keeps a manifest, <outDir>/.pfc-bulk.jsonl unless b.Manifest says
// otherwise, and a rerun after an interruption (a cancelled context,
// Ctrl-C, a crash) skips the files already done.
//
// A file that fails does not stop the run: it is listed in
// BulkReport.Failures with its error. The error result is non-nil only
// when the run itself stopped: ctx's error when ctx ended, or one matching
// context.DeadlineExceeded when the rate limit leaves no start before
// ctx's deadline (the report says how far it got), or a problem with the
// options, inDir or the manifest. Two files whose outputs would be one
// file (photo.jpg and photo.png, both to photo.png) are not both written:
// the later fails with kind invalid_parameter.
// Requests are retried by the client as usual (WithRetries; SubmitImage
// is never resent once it may have arrived); the bulk layer never repeats
// a file within a run.
func (c *Client) RemoveDir(ctx context.Context, inDir, outDir string, opts *RemoveOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	bo := derefBulk(b)
	s := bo.settings()
	items, total, err := bulk.DirItems(inDir, outDir, &s, func(rel string) string {
		return strings.TrimSuffix(rel, filepath.Ext(rel)) + ".png"
	})
	if err != nil {
		return nil, err
	}
	return c.removeBulk(ctx, items, total, opts, bo, s)
}

// RemoveAll removes the background of every item of items with opts,
// several at once; see RemoveDir. items is read as the run goes; with
// b.Manifest set the run is resumable (items are matched by ID).
func (c *Client) RemoveAll(ctx context.Context, items iter.Seq[BulkItem], opts *RemoveOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	bo := derefBulk(b)
	return c.removeBulk(ctx, bulk.Items(items, BulkItem.item), 0, opts, bo, bo.settings())
}

// removeBulk runs items through the shared runner with
// RemoveBackgroundFile as the work.
func (c *Client) removeBulk(ctx context.Context, items iter.Seq[bulk.Item], total int, opts *RemoveOptions, bo BulkOptions, s bulk.Settings) (*BulkReport, error) {
	var o RemoveOptions
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	rep, failures, err := bulk.RunClient(ctx, items, total, bulk.Client[*Result, BulkResult]{
		Settings: s,
		Work: func(ctx context.Context, it bulk.Item) (*Result, error) {
			oo := o // RemoveBackgroundFile names the file part after each item
			return c.RemoveBackgroundFile(ctx, it.Src, it.Dst, &oo)
		},
		Summarize: summarizeResult, Kind: bulkKind, Public: bulkResult,
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

// bulkSummary is the "result" of a done file's manifest record.
type bulkSummary struct {
	ProcessID string `json:"processId"`
	Bytes     int64  `json:"pngBytes"`
	// Replica is the replica that ran the job (a client of several).
	Replica string `json:"replica,omitempty"`
}

func summarizeResult(r *Result) json.RawMessage {
	if r == nil {
		return nil
	}
	s := bulkSummary{Bytes: r.Bytes, Replica: r.Replica}
	if r.Job != nil {
		s.ProcessID = r.Job.ProcessID
	}
	b, _ := json.Marshal(s)
	return b
}

// bulkKind classifies the errors of RemoveBackgroundFile for the manifest.
func bulkKind(err error) string {
	var (
		ae *APIError
		ve *ValidationError
		de *DownloadTooLargeError
	)
	switch {
	case errors.Is(err, ErrProcessingFailed):
		return "processing_failed"
	case errors.Is(err, ErrWaitTimeout):
		return "wait_timeout"
	case errors.Is(err, ErrNotActivated):
		return "not_activated"
	case errors.As(err, &de):
		return "download_too_large"
	case errors.As(err, &ve):
		return "invalid_parameter"
	case errors.As(err, &ae):
		return fmt.Sprintf("http_%d", ae.StatusCode)
	}
	return ""
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Result]) BulkResult {
	out := BulkResult{
		Item:   BulkItem{ID: r.Item.ID, SrcPath: r.Item.Src, DstPath: r.Item.Dst},
		Result: r.Value, Err: exportErr(r.Err), Kind: r.Kind, Skipped: r.Skipped, Bytes: r.Bytes, Duration: r.Duration,
	}
	switch {
	case r.Value != nil && r.Value.Job != nil:
		out.ProcessID = r.Value.Job.ProcessID
	case r.Record != nil:
		var s bulkSummary
		if json.Unmarshal(r.Record.Result, &s) == nil {
			out.ProcessID = s.ProcessID
		}
	}
	return out
}
