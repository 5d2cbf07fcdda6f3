package bulk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// DirSink is a pfc.Sink writing the output called name to the file
// <Dir>/<name> the way a bulk run writes a folder: a temporary file
// beside it, fsynced, renamed into place, the directory fsynced
// (fileio.WriteFileAtomicContext). A name must be io/fs-valid
// (fs.ValidPath: relative, slash-separated, no "." or ".." element) and
// local on this system (filepath.IsLocal: no "a\..\b" on Windows).
type DirSink struct{ Dir string }

// path checks name and returns its file.
func (s DirSink) path(name string) (string, error) {
	if s.Dir == "" || !fs.ValidPath(name) || name == "." || !filepath.IsLocal(filepath.FromSlash(name)) {
		var fe apierr.FieldErrors
		if s.Dir == "" {
			fe.Add("dir", "is required")
		} else {
			fe.Add("name", "%q is not a valid output name (relative, slash-separated, no . or .. element)", name)
		}
		return "", fe.Err()
	}
	return filepath.Join(s.Dir, filepath.FromSlash(name)), nil
}

// Put writes name atomically.
func (s DirSink) Put(ctx context.Context, name string, write func(io.Writer) error) error {
	p, err := s.path(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return fileio.WriteFileAtomicScoped(nil, p, func(w io.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		return ctx.Err() // published only while ctx is alive
	})
}

// Exists reports a regular file at name (a link is not followed).
func (s DirSink) Exists(_ context.Context, name string) (bool, error) {
	p, err := s.path(name)
	if err != nil {
		return false, err
	}
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return st.Mode().IsRegular(), nil
}

// ErrSinkMisuse is in the chain of an item's error when its Sink did not
// call the write function exactly once, with a writer.
var ErrSinkMisuse = errors.New("pfc: bulk: the sink did not call write exactly once")

// WriteOutput publishes an item's output through sink, or, with a nil
// sink, to the file dst (its directory created if needed), atomically,
// with temporary files named after the item's scope.
// A sink must call write exactly once: one that reports success without
// having called it, or calls it again, fails the item (ErrSinkMisuse)
// rather than record an output that was never written.
func WriteOutput(ctx context.Context, scope *fileio.Scope, sink pfc.Sink, dst string, write func(io.Writer) error) error {
	if sink != nil {
		calls := 0
		err := sink.Put(ctx, dst, func(w io.Writer) error {
			if calls++; calls > 1 {
				return ErrSinkMisuse
			}
			if w == nil {
				return fmt.Errorf("%w: no writer", ErrSinkMisuse)
			}
			return write(w)
		})
		if err == nil && calls != 1 {
			err = fmt.Errorf("%w: %d writes of %q", ErrSinkMisuse, calls, dst)
		}
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return fileio.WriteFileAtomicScoped(scope, dst, write)
}

var _ pfc.Sink = DirSink{}
