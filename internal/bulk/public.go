package bulk

import (
	"iter"

	"github.com/pfcsdk/pfc-go/pfc"
)

// Deref returns *b, or the zero options for nil.
func Deref[T any](b *pfc.BulkOptions[T]) pfc.BulkOptions[T] {
	if b == nil {
		return pfc.BulkOptions[T]{}
	}
	return *b
}

// SettingsOf returns the options the runner reads from b.
func SettingsOf[T any](b pfc.BulkOptions[T]) Settings {
	return Settings{Concurrency: b.Concurrency, RateLimit: b.RateLimit, RateBurst: b.RateBurst, Manifest: b.Manifest, Exts: b.Exts, Shard: Shard(b.Shard),
		Source: b.Source, Sink: b.Sink, SkipExisting: b.SkipExisting,
		MaxStarts: b.MaxStarts, DryRun: b.DryRun}
}

// ProgressOf adapts b.OnProgress to the runner's snapshots; nil when unset.
func ProgressOf[T any](b pfc.BulkOptions[T]) func(Progress) {
	if fn := b.OnProgress; fn != nil {
		return func(p Progress) { fn(pfc.BulkProgress(p)) }
	}
	return nil
}

// PublicItems is items in the runner's form.
func PublicItems(items iter.Seq[pfc.BulkItem]) iter.Seq[Item] {
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

// publicItems is items in the public form.
func publicItems(items []Item) []pfc.BulkItem {
	var out []pfc.BulkItem
	for _, it := range items {
		out = append(out, pfc.BulkItem{ID: it.ID, SrcPath: it.Src, DstPath: it.Dst})
	}
	return out
}

// PublicReport is the public form of rep with the client's failures (a
// dry run's: its refusals, which go to the plan).
func PublicReport[R any](rep *Report[R], failures []pfc.BulkResult[R]) *pfc.BulkReport[R] {
	out := &pfc.BulkReport[R]{
		Total: rep.Total, Done: rep.Done, Failed: rep.Failed, Skipped: rep.Skipped,
		Interrupted: rep.Interrupted, Bytes: rep.Bytes, Elapsed: rep.Elapsed, Failures: failures,
		Shard:   pfc.Shard(rep.Shard),
		Started: rep.Started, Collected: rep.Collected, Redone: rep.Redone, NotStarted: rep.NotStarted,
		Usage: rep.Usage,
	}
	if p := rep.Plan; p != nil {
		out.Failures = nil
		out.Plan = &pfc.BulkPlan[R]{Process: publicItems(p.Process), Done: publicItems(p.Done),
			Collect: publicItems(p.Collect), Refused: failures}
	}
	return out
}
