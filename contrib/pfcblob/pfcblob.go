// Package pfcblob connects the bulk runs of pfc-go to object storage
// through gocloud.dev/blob: a *blob.Bucket (S3 or any S3-compatible
// store with s3blob, Google Cloud Storage, Azure Blob Storage, a folder
// with fileblob) is the run's input, BulkOptions.Source (see Source), and
// its output, BulkOptions.Sink (see Sink):
//
//	in, _ := blob.OpenBucket(ctx, "s3://photos?region=eu-west-1")
//	out, _ := blob.OpenBucket(ctx, "s3://cutouts?region=eu-west-1")
//	rep, err := c.RemoveDir(ctx, "2026/shoot-17", "2026/shoot-17", nil, &pfc.BulkOptions[*bgcontainer.Result]{
//		Source:       pfcblob.Source(ctx, in),
//		Sink:         pfcblob.NewSink(out),
//		SkipExisting: true, // the pod's manifest does not outlive it
//		Shard:        pfc.Shard{Index: i, Count: n},
//	})
//
// Uploads stream from the bucket: an object is read in order, and read
// again from its start for a retried upload; none is held in memory. An
// output is an object written with a blob.Writer, which the store makes
// visible only when the writer is closed: a write that fails, or whose
// context ends, or whose process dies first, publishes nothing (a
// multipart upload left behind is not an object; a bucket lifecycle rule
// removes such uploads).
//
// This package lives in a module of its own, so that the SDK's go.mod
// gains no cloud dependency.
package pfcblob

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"gocloud.dev/blob"

	"github.com/pfcsdk/pfc-go/pfc"
)

// Sink is a pfc.Sink writing each output to an object of a bucket, its
// key the output's name. Create it with NewSink.
type Sink struct {
	bucket *blob.Bucket
	opts   *blob.WriterOptions
}

// NewSink returns a Sink writing to b with the writer options opts (nil:
// the defaults; ContentType is sniffed from the output then).
func NewSink(b *blob.Bucket, opts ...*blob.WriterOptions) *Sink {
	s := &Sink{bucket: b}
	if len(opts) > 0 {
		s.opts = opts[0]
	}
	return s
}

// Put writes the object name with write and publishes it by closing its
// writer, only when write returned nil and ctx is alive; otherwise the
// writer's context is cancelled before Close, which discards the object.
func (s *Sink) Put(ctx context.Context, name string, write func(io.Writer) error) error {
	if err := s.check(name); err != nil {
		return err
	}
	if write == nil {
		return &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "write", Message: "is required"}}}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, name, s.opts)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		cancel()
		_ = w.Close()
		return err
	}
	if err := ctx.Err(); err != nil {
		cancel()
		_ = w.Close()
		return err
	}
	return w.Close()
}

// Exists reports whether the object name exists.
func (s *Sink) Exists(ctx context.Context, name string) (bool, error) {
	if err := s.check(name); err != nil {
		return false, err
	}
	return s.bucket.Exists(ctx, name)
}

// check refuses a Sink without a bucket, and what checkName refuses.
func (s *Sink) check(name string) error {
	if s == nil || s.bucket == nil {
		return &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "bucket", Message: "is required (NewSink with a bucket)"}}}
	}
	return checkName(name)
}

// checkName refuses a name that is no io/fs name (absolute, with a "."
// or ".." element): a key no listing of the run would make.
func checkName(name string) error {
	if !fs.ValidPath(name) || name == "." {
		return &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "name",
			Message: fmt.Sprintf("%q is not a valid object name (relative, slash-separated, no . or .. element)", name)}}}
	}
	return nil
}

var _ pfc.Sink = (*Sink)(nil)
