package pfccontainer

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
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// BulkItem is one file of a bulk run: SrcPath is corrected into DstPath.
type BulkItem struct {
	// ID identifies the item in the manifest and must be unique within a
	// run; empty means SrcPath. CorrectDir uses the path relative to the
	// input directory.
	ID string
	// SrcPath is the image to correct (JPEG or PNG).
	SrcPath string
	// DstPath is where the corrected image goes (written atomically; its
	// directory is created if needed).
	DstPath string
}

// BulkOptions configures the bulk runs (Client.CorrectDir and
// CorrectAll, Direct.CorrectDir and CorrectAll). The zero value (or nil)
// corrects 4 files at once without rate limit.
type BulkOptions struct {
	// Concurrency bounds the files in flight (0: 4). The container
	// corrects one image per request; size this to its CPU or GPU.
	Concurrency int
	// RateLimit, if positive, bounds how many files start per second on
	// average (a token bucket).
	RateLimit float64
	// RateBurst is the token bucket's size (0: 1).
	RateBurst int
	// Manifest is the path of the run's manifest (JSON Lines), which makes
	// the run resumable: a rerun with the same manifest skips the files
	// done before and corrects the others, the failed ones included.
	// CorrectDir uses <outDir>/.pfc-bulk.jsonl when it is empty;
	// CorrectAll keeps no manifest when it is empty. One run at a time
	// per manifest.
	Manifest string
	// Exts are the file extensions CorrectDir takes (case-insensitive,
	// with the dot); nil means .jpg, .jpeg and .png.
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
	// Correction is the container's answer; nil when the file failed or
	// was skipped.
	Correction *Correction
	// Err is nil for a corrected or skipped file, else the error of the
	// file's correction: an *Error, *APIError, *ValidationError,
	// *DownloadTooLargeError or a file error, usable with errors.As and
	// errors.Is.
	Err error
	// Kind classifies Err, as the manifest records it: the container's
	// message id (e.g. "processingPFCErrorMessage") for an *Error,
	// "download_too_large", "invalid_parameter", "http_<status>", "file",
	// "deadline" or "error".
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
	// Interrupted counts the files not finished when the run was stopped;
	// a rerun corrects them.
	Interrupted int
	// Bytes is the input size of the files done or failed in this run.
	Bytes int64
	// Elapsed is how long the run took.
	Elapsed time.Duration
	// Failures lists every failed file with its error, in the order they
	// failed.
	Failures []BulkResult
}

// CorrectDir corrects every JPEG and PNG under inDir (recursively, in
// lexical order; hidden files and outDir itself are left out) into the
// same relative path under outDir with o, several at once, through HTTP
// (CorrectFile per file). The output's extension follows o.OutputType.
// The run is resumable: it keeps a manifest, <outDir>/.pfc-bulk.jsonl
// unless b.Manifest says otherwise, and a rerun after an interruption
// (a cancelled context, Ctrl-C, a crash) skips the files already
// corrected.
//
// A file that fails does not stop the run: it is listed in
// BulkReport.Failures with its error. The error result is non-nil only
// when the run itself stopped: ctx's error when ctx ended, or one matching
// context.DeadlineExceeded when the rate limit leaves no start before
// ctx's deadline (the report says how far it got), or a problem with the
// options, inDir or the manifest. Two files whose outputs would be one
// file (photo.jpg and photo.png, both to photo.png) are not both written:
// the later fails with kind invalid_parameter.
// Requests are retried by the client as usual (WithRetries); the bulk
// layer never repeats a file within a run.
func (c *Client) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	return bulkDir(ctx, inDir, outDir, o, b, c.bulkWork(o))
}

// CorrectAll corrects every item of items with o, several at once; see
// CorrectDir. items is read as the run goes; with b.Manifest set the run
// is resumable (items are matched by ID).
func (c *Client) CorrectAll(ctx context.Context, items iter.Seq[BulkItem], o *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	return bulkAll(ctx, items, o, b, c.bulkWork(o))
}

// CorrectDir is Client.CorrectDir in direct file mode: each file is
// copied into InputDir, corrected, and its result copied from OutputDir
// to its place under outDir. Files reach InputDir under a name unique to
// the run and the item (see Direct.PutFile), so images of the same name
// in different folders, or in runs sharing the container, never collide;
// each is removed once done with, as by Direct.CorrectFile.
func (d *Direct) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkDir(ctx, inDir, outDir, o, b, d.bulkWork(o))
}

// CorrectAll is Client.CorrectAll in direct file mode (see
// Direct.CorrectDir).
func (d *Direct) CorrectAll(ctx context.Context, items iter.Seq[BulkItem], o *CorrectionOptions, b *BulkOptions) (_ *BulkReport, err error) {
	defer exportTo(&err)
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkAll(ctx, items, o, b, d.bulkWork(o))
}

// checked reports missing Direct settings once, before a bulk run.
func (d *Direct) checked() error {
	var fe fieldErrors
	d.check(&fe)
	return fe.err()
}

// bulkWork is the HTTP flow for one file.
func (c *Client) bulkWork(o *CorrectionOptions) func(context.Context, bulk.Item) (*Correction, error) {
	return func(ctx context.Context, it bulk.Item) (*Correction, error) {
		return c.CorrectFile(ctx, it.Src, it.Dst, o)
	}
}

// bulkWork is the direct-file flow for one file.
func (d *Direct) bulkWork(o *CorrectionOptions) func(context.Context, bulk.Item) (*Correction, error) {
	names := newRunNames()
	return func(ctx context.Context, it bulk.Item) (*Correction, error) {
		f, size, err := fileio.OpenParamContext(ctx, "srcPath", it.Src)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		// As over HTTP, only a JPEG or PNG is handed to the container.
		if _, err := fileio.SniffImage(f, size); err != nil {
			return nil, err
		}
		corr, _, err := d.correctVia(ctx, names.next(filepath.Base(it.Src)), f, it.Dst, o)
		return corr, err
	}
}

// bulkDir lists inDir and runs work over it.
func bulkDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *BulkOptions, work func(context.Context, bulk.Item) (*Correction, error)) (*BulkReport, error) {
	bo := derefBulk(b)
	s := bo.settings()
	items, total, err := bulk.DirItems(inDir, outDir, &s, outputName(o))
	if err != nil {
		return nil, err
	}
	return runBulk(ctx, items, total, o, bo, s, work)
}

// bulkAll runs work over items.
func bulkAll(ctx context.Context, items iter.Seq[BulkItem], o *CorrectionOptions, b *BulkOptions, work func(context.Context, bulk.Item) (*Correction, error)) (*BulkReport, error) {
	bo := derefBulk(b)
	return runBulk(ctx, bulk.Items(items, BulkItem.item), 0, o, bo, bo.settings(), work)
}

// runBulk checks the options once and runs the shared runner.
func runBulk(ctx context.Context, items iter.Seq[bulk.Item], total int, o *CorrectionOptions, bo BulkOptions, s bulk.Settings, work func(context.Context, bulk.Item) (*Correction, error)) (*BulkReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	rep, failures, err := bulk.RunClient(ctx, items, total, bulk.Client[*Correction, BulkResult]{
		Settings: s, Work: work, Summarize: summarizeCorrection, Kind: bulkKind, Public: bulkResult,
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

// outputName renames outputs after o.OutputType.
func outputName(o *CorrectionOptions) func(string) string {
	ext := ""
	if o != nil {
		switch strings.ToLower(string(o.OutputType)) {
		case "jpeg", "jpg":
			ext = ".jpg"
		case "png":
			ext = ".png"
		}
	}
	return func(rel string) string {
		old := filepath.Ext(rel)
		if ext == "" || strings.EqualFold(old, ext) || (ext == ".jpg" && strings.EqualFold(old, ".jpeg")) {
			return rel
		}
		return strings.TrimSuffix(rel, old) + ext
	}
}

// summarizeCorrection is the "result" of a done file's manifest record.
func summarizeCorrection(c *Correction) json.RawMessage {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(struct {
		File    string `json:"file"`
		Scene   Scene  `json:"scene"`
		Replica string `json:"replica,omitempty"`
	}{c.FileName(), c.Scene, c.Replica})
	return b
}

// bulkKind classifies the errors of a file's correction for the manifest.
func bulkKind(err error) string {
	var (
		ce *Error
		ae *APIError
		ve *ValidationError
		de *DownloadTooLargeError
	)
	switch {
	case errors.As(err, &ce) && ce.MessageID != "":
		return string(ce.MessageID)
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
func bulkResult(r bulk.Result[*Correction]) BulkResult {
	return BulkResult{
		Item:       BulkItem{ID: r.Item.ID, SrcPath: r.Item.Src, DstPath: r.Item.Dst},
		Correction: r.Value, Err: exportErr(r.Err), Kind: r.Kind, Skipped: r.Skipped, Bytes: r.Bytes, Duration: r.Duration,
	}
}
