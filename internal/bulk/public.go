package bulk

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/pfcsdk/pfc-go/pfc"
)

// PublicRun is a run of a client's public bulk entry point: the caller's
// options, the settings the runner reads from them, and the items.
type PublicRun[R any] struct {
	// Options are the caller's BulkOptions (the zero ones for nil).
	Options pfc.BulkOptions[R]
	// Settings are Options in the runner's terms; a Dir run has its
	// default manifest in Settings.Manifest (see DirItems).
	Settings Settings
	// Items are the run's items; Total is their number, 0 when unknown
	// (an All run).
	Items iter.Seq[Item]
	Total int
}

// DirRun is the run of a client's Dir entry point (CorrectDir,
// RemoveDir) over inDir into outDir, rename naming the outputs: it checks
// the shard and lists the items (DirItems).
func DirRun[R any](inDir, outDir string, b *pfc.BulkOptions[R], rename func(rel string) string) (PublicRun[R], error) {
	r := PublicRun[R]{Options: Deref(b)}
	r.Settings = settingsOf(r.Options)
	var err error
	r.Items, r.Total, err = DirItems(inDir, outDir, &r.Settings, rename)
	return r, err
}

// AllRun is the run of a client's All entry point (CorrectAll,
// RemoveAll) over items, read as the run goes.
func AllRun[R any](items iter.Seq[pfc.BulkItem], b *pfc.BulkOptions[R]) PublicRun[R] {
	o := Deref(b)
	return PublicRun[R]{Options: o, Settings: settingsOf(o), Items: publicItems(items)}
}

// Run runs r through RunClient with c, whose Settings, OnProgress and
// OnResult are r's, and returns the public report (nil when the run
// could not start).
func (r PublicRun[R]) Run(ctx context.Context, c Client[R, pfc.BulkResult[R]]) (*pfc.BulkReport[R], error) {
	c.Settings, c.OnProgress, c.OnResult = r.Settings, progressOf(r.Options), r.Options.OnResult
	rep, failures, err := RunClient(ctx, r.Items, r.Total, c)
	if rep == nil {
		return nil, err
	}
	return publicReport(rep, failures), err
}

// Deref returns *b, or the zero options for nil.
func Deref[T any](b *pfc.BulkOptions[T]) pfc.BulkOptions[T] {
	if b == nil {
		return pfc.BulkOptions[T]{}
	}
	return *b
}

// settingsOf returns the options the runner reads from b.
func settingsOf[T any](b pfc.BulkOptions[T]) Settings {
	return Settings{Concurrency: b.Concurrency, RateLimit: b.RateLimit, RateBurst: b.RateBurst, Manifest: b.Manifest, Exts: b.Exts, Shard: Shard(b.Shard),
		Source: b.Source, Sink: b.Sink, SkipExisting: b.SkipExisting,
		MaxStarts: b.MaxStarts, DryRun: b.DryRun}
}

// progressOf adapts b.OnProgress to the runner's snapshots; nil when unset.
func progressOf[T any](b pfc.BulkOptions[T]) func(Progress) {
	if fn := b.OnProgress; fn != nil {
		return func(p Progress) { fn(pfc.BulkProgress(p)) }
	}
	return nil
}

// publicItems is items in the runner's form.
func publicItems(items iter.Seq[pfc.BulkItem]) iter.Seq[Item] {
	return Items(items, func(it pfc.BulkItem) Item { return Item{ID: it.ID, Src: it.SrcPath, Dst: it.DstPath} })
}

// PublicResult is the public form of r, its Result r.Value (the client
// may set another, such as a failed job's record).
func PublicResult[R any](r Result[R]) pfc.BulkResult[R] {
	return pfc.BulkResult[R]{Result: r.Value,
		Item: pfc.BulkItem{ID: r.Item.ID, SrcPath: r.Item.Src, DstPath: r.Item.Dst},
		Err:  r.Err, Kind: r.Kind, Skipped: r.Skipped, Collected: r.Collected, Bytes: r.Bytes, Duration: r.Duration,
	}
}

// bulkItems is items in the public form.
func bulkItems(items []Item) []pfc.BulkItem {
	var out []pfc.BulkItem
	for _, it := range items {
		out = append(out, pfc.BulkItem{ID: it.ID, SrcPath: it.Src, DstPath: it.Dst})
	}
	return out
}

// publicReport is the public form of rep with the client's failures (a
// dry run's: its refusals, which go to the plan).
func publicReport[R any](rep *Report[R], failures []pfc.BulkResult[R]) *pfc.BulkReport[R] {
	out := &pfc.BulkReport[R]{
		Total: rep.Total, Done: rep.Done, Failed: rep.Failed, Skipped: rep.Skipped,
		Interrupted: rep.Interrupted, Bytes: rep.Bytes, Elapsed: rep.Elapsed, Failures: failures,
		Shard:   pfc.Shard(rep.Shard),
		Started: rep.Started, Collected: rep.Collected, Redone: rep.Redone, NotStarted: rep.NotStarted,
		Usage: rep.Usage,
	}
	if p := rep.Plan; p != nil {
		out.Failures = nil
		out.Plan = &pfc.BulkPlan[R]{Process: bulkItems(p.Process), Done: bulkItems(p.Done),
			Collect: bulkItems(p.Collect), Refused: failures}
	}
	return out
}

// callKind classifies the errors of package pfc that the calls of every
// client give: "download_too_large" (a *pfc.DownloadTooLargeError),
// "invalid_parameter" (a *pfc.ValidationError) and "http_<status>" (a
// *pfc.APIError); "" for any other.
func callKind(err error) string {
	var (
		ae *pfc.APIError
		ve *pfc.ValidationError
		de *pfc.DownloadTooLargeError
	)
	switch {
	case errors.As(err, &de):
		return "download_too_large"
	case errors.As(err, &ve):
		return "invalid_parameter"
	case errors.As(err, &ae):
		return fmt.Sprintf("http_%d", ae.StatusCode)
	}
	return ""
}
