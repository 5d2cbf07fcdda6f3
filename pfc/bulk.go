package pfc

import (
	"io/fs"
	"time"
)

// BulkItem is one file of a bulk run (CorrectDir, CorrectAll, RemoveDir,
// RemoveAll): SrcPath is processed into DstPath.
type BulkItem struct {
	// ID identifies the item in the manifest and must be unique within a
	// run; empty means SrcPath. The Dir variants use the path relative to
	// the input directory.
	ID string
	// SrcPath is the file to process.
	SrcPath string
	// DstPath is where the result goes (written atomically; its directory
	// is created if needed).
	DstPath string
}

// BulkOptions configures a bulk run whose files' results are of type T
// (*hosted.Job, *pfccontainer.Correction, *bgcontainer.Result). The zero
// value (or nil) processes 4 files at once, without rate limit, with the
// client's settings.
type BulkOptions[T any] struct {
	// Concurrency bounds the files in flight (0: 4).
	Concurrency int
	// RateLimit, if positive, bounds how many files start per second on
	// average (a token bucket). It paces the files of this run only, not
	// their requests (a file makes several: upload, start, polls,
	// download): for a request quota, give the client WithRateLimit,
	// which bounds every request of the client, across runs and calls.
	RateLimit float64
	// RateBurst is the token bucket's size: how many files may start at
	// once after a pause (0: 1).
	RateBurst int
	// Manifest is the path of the run's manifest (JSON Lines), which makes
	// the run resumable: a rerun with the same manifest skips the files
	// done before and retries the others. The Dir variants use
	// <outDir>/.pfc-bulk.jsonl when it is empty; the All variants keep no
	// manifest then. One run at a time per manifest.
	Manifest string
	// Exts are the file extensions the Dir variants take (case-insensitive,
	// with the dot); nil means .jpg, .jpeg and .png. The hosted API also
	// corrects ".mp4" and ".mov".
	Exts []string
	// OnProgress, if set, receives a snapshot each time a file starts or
	// finishes. Calls are serialised; keep it quick.
	OnProgress func(BulkProgress)
	// OnResult, if set, receives the outcome of every file as it finishes,
	// skipped files included. Calls are serialised with OnProgress.
	OnResult func(BulkResult[T])
	// Flow holds the controls of each file's flow (see FlowOptions); a
	// Wait.OnProgress runs on the goroutines of several files at once.
	Flow *FlowOptions
	// Shard, if set, makes the run one shard of several: only the files
	// of that shard are processed (see Shard), and the Dir variants'
	// default manifest is <outDir>/.pfc-bulk.shard-<i>-of-<n>.jsonl, one
	// per shard, so shards may share an output folder.
	Shard Shard
	// Source, if set, holds the inputs: the Dir variants' inDir is a
	// directory in it ("." its root), the All variants' SrcPath a name in
	// it (an io/fs name: fs.ValidPath; another is refused, naming
	// SrcPath). Uploads stream from it (see "Bulk runs" in the package
	// doc).
	Source fs.FS
	// Sink, if set, receives the outputs, each published atomically: the
	// Dir variants' outDir is a name prefix in it ("." none), DstPath a
	// name (fs.ValidPath; another is refused, naming DstPath, before its
	// job starts). The Dir variants then keep no manifest unless Manifest
	// names one. Not for pfccontainer's direct file mode.
	Sink Sink
	// SkipExisting skips a file whose output exists as done, manifest or
	// not: for workers whose manifest does not outlive them (a pod's disk).
	SkipExisting bool
	// MaxStarts, if positive, caps the files this run starts a job for:
	// at the cap no new file starts, those in flight finish, the rest
	// count in BulkReport.NotStarted and the run returns an error
	// matching ErrJobCapReached; a rerun with the same manifest goes on.
	// Collecting a job an earlier run started does not count.
	MaxStarts int
	// DryRun, if set, sends nothing and writes nothing: the run only says
	// what it would do, in BulkReport.Plan.
	DryRun bool
}

// BulkProgress is a snapshot of a bulk run.
type BulkProgress struct {
	// Total is the number of files, or -1 when unknown (the All variants).
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
	// Rate is the requests per second the client's rate budget allows
	// now (see WithRateLimit): lower than the configured rate after the
	// service answered 429. 0 when the client has no rate budget.
	Rate float64
}

// BulkResult is the outcome of one file of a bulk run, T the type of the
// client's flow result.
type BulkResult[T any] struct {
	// Item is the file, its ID filled in.
	Item BulkItem
	// JobID is the job's id (hosted job id, bgcontainer process id), also
	// for a skipped file and for a wait that timed out (the job may still
	// finish); empty for pfccontainer.
	JobID string
	// Result is what the flow returned, typed: a *hosted.Job, a
	// *pfccontainer.Correction or a *bgcontainer.Result; for a failed
	// hosted job, the terminal record. nil when skipped or when the file
	// failed before there was one.
	Result T
	// Err is nil for a file done or skipped, else the flow's error, usable
	// with errors.As and errors.Is.
	Err error
	// Kind classifies Err, as the manifest records it: "job_failed",
	// "job_rejected", "wait_timeout", "download_too_large",
	// "invalid_parameter", "http_<status>", "file", "deadline", "error" or
	// a container's own kind.
	Kind string
	// Skipped reports a file done by an earlier run of the manifest.
	Skipped bool
	// Collected reports a file finished from the job an earlier run had
	// started (recorded in the manifest as in flight), no new job.
	Collected bool
	// Bytes is the input's size.
	Bytes int64
	// Duration is how long the file took.
	Duration time.Duration
}

// BulkReport sums up a bulk run whose files' results are of type T.
type BulkReport[T any] struct {
	// Total is the number of files seen.
	Total int
	// Done, Failed and Skipped count the files processed, failed, and
	// skipped as done by an earlier run.
	Done, Failed, Skipped int
	// Interrupted counts the files not finished when the run was stopped
	// (cancelled in flight or not started); a rerun processes them.
	Interrupted int
	// Bytes is the input size of the files done or failed in this run.
	Bytes int64
	// Elapsed is how long the run took.
	Elapsed time.Duration
	// Failures lists every failed file with its error, in the order they
	// failed.
	Failures []BulkResult[T]
	// Shard is the shard the run was (BulkOptions.Shard); the counts are
	// of its files only.
	Shard Shard
	// Started counts the jobs this run started (the service's billed
	// work); Collected the files finished from jobs an earlier run
	// started (in Done or Failed too); Redone the jobs recorded in flight
	// that the service no longer knew (ErrJobForgotten), whose files were
	// processed again.
	Started, Collected, Redone int
	// NotStarted counts the files left when MaxStarts stopped the run.
	NotStarted int
	// Usage sums the billing counters of the jobs of the files done in
	// this run, collected ones included, by name: the hosted job's usage
	// ("size", "hdr", ...). nil for the containers.
	Usage map[string]float64
	// Plan is what a dry run (BulkOptions.DryRun) would do; nil otherwise.
	Plan *BulkPlan[T]
}

// BulkPlan is what a bulk run would do, as BulkOptions.DryRun finds it
// without a request to the service.
type BulkPlan[T any] struct {
	// Process lists the files it would start a job for.
	Process []BulkItem
	// Done lists the files an earlier run of the manifest did (skipped).
	Done []BulkItem
	// Collect lists the files whose job an earlier run started: collected
	// first, no new job.
	Collect []BulkItem
	// Refused lists the files local checks refuse, each with its error (a
	// *ValidationError naming the field, or the file's error) and Kind.
	Refused []BulkResult[T]
}
