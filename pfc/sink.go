package pfc

import (
	"context"
	"io"
)

// Sink receives the outputs of a bulk run (BulkOptions.Sink) and
// publishes each one atomically or not at all: a reader of the sink sees
// an output whole, or not at all, never part of one. DirSink writes to a
// folder; the module github.com/pfcsdk/pfc-go/contrib/pfcblob writes to an
// object storage bucket. A Sink is used by several files at once.
type Sink interface {
	// Put calls write once with a writer for the output called name (a
	// slash-separated relative name, as io/fs names files) and publishes
	// what it wrote only if write returns nil and ctx is alive; else
	// nothing is published and an earlier output of that name stays.
	Put(ctx context.Context, name string, write func(io.Writer) error) error
	// Exists reports whether an output called name is published.
	Exists(ctx context.Context, name string) (bool, error)
}
