package bulk

import (
	"context"
	"encoding/json"
	"io/fs"
	"iter"
	"path"
	"path/filepath"
	"slices"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Settings are the fields every client's public BulkOptions has, in the
// runner's terms.
type Settings struct {
	// Concurrency, RateLimit (files started per second; 0: none),
	// RateBurst, Manifest, Exts, MaxStarts and DryRun as the clients
	// document them.
	Concurrency int
	RateLimit   float64
	RateBurst   int
	Manifest    string
	Exts        []string
	// Shard selects the run's part of the items (zero: all).
	Shard Shard
	// Source, Sink and SkipExisting are Options'.
	Source       fs.FS
	Sink         pfc.Sink
	SkipExisting bool
	MaxStarts    int
	DryRun       bool
}

// DirItems lists inDir for a client's Dir entry point (see Dir; FSDir
// when s.Source is set, inDir then a name in it): it sets s.Manifest to
// <outDir>/<s.Shard.ManifestNameOf()> when it is empty and the outputs
// are files (no s.Sink), and returns the items of s.Shard as a sequence
// with their number. With s.Sink, outDir is a name prefix in the sink.
func DirItems(inDir, outDir string, s *Settings, rename func(rel string) string) (iter.Seq[Item], int, error) {
	if err := s.Shard.Check("Shard"); err != nil {
		return nil, 0, err
	}
	if s.Manifest == "" && outDir != "" && s.Sink == nil {
		s.Manifest = filepath.Join(outDir, s.Shard.ManifestNameOf())
	}
	var items []Item
	var err error
	switch {
	case s.Source != nil:
		items, err = FSDir(s.Source, inDir, outDir, s.Sink != nil, DirOptions{Exts: s.Exts, Rename: rename})
	case s.Sink != nil:
		if !fs.ValidPath(outDir) {
			var fe apierr.FieldErrors
			fe.Add("outDir", "%q is not a valid name prefix in the sink (relative, slash-separated; \".\" for its root)", outDir)
			return nil, 0, fe.Err()
		}
		// A folder into a sink: the outputs are named as in the folder.
		// Dir wants an output folder: a hidden one inside inDir, which
		// is never listed, and never written.
		items, err = Dir(inDir, filepath.Join(inDir, ".pfc-sink"), DirOptions{Exts: s.Exts})
		for i := range items {
			out := items[i].ID
			if rename != nil {
				out = filepath.ToSlash(rename(filepath.FromSlash(out)))
			}
			items[i].Dst = path.Join(outDir, out)
		}
	default:
		items, err = Dir(inDir, outDir, DirOptions{Exts: s.Exts, Rename: rename})
	}
	if err != nil {
		return nil, 0, err
	}
	items = slices.DeleteFunc(items, func(it Item) bool { return !s.Shard.Has(it.ID) })
	return slices.Values(items), len(items), nil
}

// Items maps a client's item sequence to the runner's; nil stays nil (Run
// reports it).
func Items[T any](items iter.Seq[T], item func(T) Item) iter.Seq[Item] {
	if items == nil {
		return nil
	}
	return func(yield func(Item) bool) {
		for it := range items {
			if !yield(item(it)) {
				return
			}
		}
	}
}

// Client is one client's bulk run: the work and how its outcome reads in
// the manifest and in the client's public result type P.
type Client[R, P any] struct {
	Settings Settings
	// Work processes one item (the client's one-call flow), calling
	// started once the service accepted its job (Options.Start).
	Work func(ctx context.Context, it Item, started Started) (R, error)
	// Collect and Usage are Options.Collect and Options.Usage.
	Collect func(ctx context.Context, it Item, job json.RawMessage) (R, error)
	Usage   func(R) map[string]float64
	// Summarize is Options.Summarize.
	Summarize func(R) json.RawMessage
	// Kind classifies the client's own errors (Options.Kind); where it
	// is nil or answers "", the errors of package pfc every client's
	// calls give are classified ("download_too_large",
	// "invalid_parameter", "http_<status>"), then DefaultKind's.
	Kind func(error) string
	// Redact is the client's redactor, for the manifest (Options.Redact).
	Redact func(string) string
	// Public converts a result to the client's BulkResult.
	Public func(Result[R]) P
	// OnProgress and OnResult are the client's callbacks, if set.
	OnProgress func(Progress)
	OnResult   func(P)
	// Observer and Name are Options.Observer and Options.Name.
	Observer pfc.Observer
	Name     string
	// Rate is Options.Rate: the client's current rate budget.
	Rate func() float64
}

// kind is Client.Kind, then callKind.
func (c Client[R, P]) kind(err error) string {
	if c.Kind != nil {
		if k := c.Kind(err); k != "" {
			return k
		}
	}
	return callKind(err)
}

// RunClient checks c's rate settings, runs items through Run and returns
// the report with its failures in the client's type. The report is nil
// when the run could not start.
func RunClient[R, P any](ctx context.Context, items iter.Seq[Item], total int, c Client[R, P]) (*Report[R], []P, error) {
	if !(c.Settings.RateLimit >= 0) || c.Settings.RateBurst < 0 { // NaN too
		var fe apierr.FieldErrors
		fe.Add("RateLimit", "must not be negative or NaN (RateLimit %v, RateBurst %d)", c.Settings.RateLimit, c.Settings.RateBurst)
		return nil, nil, fe.Err()
	}
	o := Options[R]{
		Concurrency:  c.Settings.Concurrency,
		Limiter:      NewLimiter(c.Settings.RateLimit, c.Settings.RateBurst),
		Manifest:     c.Settings.Manifest,
		Total:        total,
		OnProgress:   c.OnProgress,
		Rate:         c.Rate,
		Summarize:    c.Summarize,
		Kind:         c.kind,
		Redact:       c.Redact,
		Observer:     c.Observer,
		Name:         c.Name,
		Shard:        c.Settings.Shard,
		Source:       c.Settings.Source,
		Sink:         c.Settings.Sink,
		SkipExisting: c.Settings.SkipExisting,
		Start:        c.Work,
		Collect:      c.Collect,
		Usage:        c.Usage,
		MaxStarts:    c.Settings.MaxStarts,
		DryRun:       c.Settings.DryRun,
	}
	if fn := c.OnResult; fn != nil {
		o.OnResult = func(r Result[R]) { fn(c.Public(r)) }
	}
	rep, err := Run(ctx, items, nil, o)
	if rep == nil {
		return nil, nil, err
	}
	var failures []P
	for _, f := range rep.Failures {
		failures = append(failures, c.Public(f))
	}
	if rep.Plan != nil {
		// A dry run's refusals, in the client's type.
		for _, f := range rep.Plan.Refused {
			failures = append(failures, c.Public(f))
		}
	}
	return rep, failures, err
}
