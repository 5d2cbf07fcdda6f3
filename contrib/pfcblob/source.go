package pfcblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Source returns the objects of b as the fs.FS of a bulk run's inputs
// (BulkOptions.Source), every request made with ctx: keys are the
// names, "/" separating folders, and a folder exists while an object
// is under it. Opening an object starts its download, read in order as
// the upload goes; nothing is buffered beyond a read. Unlike b's own
// io/fs methods, Source leaves b unchanged (no SetIOFSCallback), so
// runs with other contexts may share b.
func Source(ctx context.Context, b *blob.Bucket) fs.FS {
	return &bucketFS{ctx: ctx, b: b}
}

// errNoBucket is the error of a Source made without a bucket or context.
var errNoBucket = errors.New("pfcblob: Source needs a bucket and a context")

// check refuses an invalid name, or a Source without bucket or context.
func (s *bucketFS) check(op, name string) error {
	if s.b == nil || s.ctx == nil {
		return &fs.PathError{Op: op, Path: name, Err: errNoBucket}
	}
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// bucketFS is Source's fs.FS; it is also an fs.ReadDirFS and fs.StatFS.
type bucketFS struct {
	ctx context.Context
	b   *blob.Bucket
}

// pathError wraps err, its gcerrors code mapped to the fs sentinels.
func pathError(op, name string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		err = fmt.Errorf("%w (%w)", fs.ErrNotExist, err)
	case gcerrors.PermissionDenied:
		err = fmt.Errorf("%w (%w)", fs.ErrPermission, err)
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// Open opens the object name, or the folder name when no object has
// that key.
func (s *bucketFS) Open(name string) (fs.File, error) {
	if err := s.check("open", name); err != nil {
		return nil, err
	}
	if name != "." {
		r, err := s.b.NewReader(s.ctx, name, nil)
		if err == nil {
			return &objectFile{r: r, info: fileInfo{name: path.Base(name), size: r.Size(), mod: r.ModTime()}}, nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound {
			return nil, pathError("open", name, err)
		}
	}
	ents, err := s.ReadDir(name)
	if err != nil {
		return nil, err
	}
	return &dirFile{info: fileInfo{name: path.Base(name), dir: true}, ents: ents}, nil
}

// Stat returns the object's, or the folder's, information.
func (s *bucketFS) Stat(name string) (fs.FileInfo, error) {
	if err := s.check("stat", name); err != nil {
		return nil, err
	}
	if name != "." {
		a, err := s.b.Attributes(s.ctx, name)
		if err == nil {
			return fileInfo{name: path.Base(name), size: a.Size, mod: a.ModTime}, nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound {
			return nil, pathError("stat", name, err)
		}
	}
	if _, err := s.ReadDir(name); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errors.Unwrap(err)}
	}
	return fileInfo{name: path.Base(name), dir: true}, nil
}

// ReadDir lists the folder name, sorted by name; a folder with nothing
// under it does not exist (but the root).
func (s *bucketFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := s.check("readdir", name); err != nil {
		return nil, err
	}
	prefix := ""
	if name != "." {
		prefix = name + "/"
	}
	var ents []fs.DirEntry
	found := false // anything under prefix, listed or not
	it := s.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	for {
		obj, err := it.Next(s.ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, pathError("readdir", name, err)
		}
		found = true
		base, marker := strings.CutSuffix(strings.TrimPrefix(obj.Key, prefix), "/")
		if marker && !obj.IsDir || !fs.ValidPath(base) || base == "." || strings.Contains(base, "/") {
			continue // a folder marker ("a/"), or a key no fs name can give
		}
		ents = append(ents, fileInfo{name: base, size: obj.Size, mod: obj.ModTime, dir: obj.IsDir})
	}
	if !found && name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	// By name; an object and a folder of one name: the object, which
	// Open opens.
	slices.SortStableFunc(ents, func(a, b fs.DirEntry) int {
		if c := strings.Compare(a.Name(), b.Name()); c != 0 || a.IsDir() == b.IsDir() {
			return c
		}
		if a.IsDir() {
			return 1
		}
		return -1
	})
	ents = slices.CompactFunc(ents, func(a, b fs.DirEntry) bool { return a.Name() == b.Name() })
	return ents, nil
}

// fileInfo describes an object (a regular file) or a folder.
type fileInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time         { return i.mod.Truncate(time.Second).UTC() }
func (i fileInfo) IsDir() bool                { return i.dir }
func (i fileInfo) Sys() any                   { return nil }
func (i fileInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i fileInfo) Info() (fs.FileInfo, error) { return i, nil }

// objectFile is an open object, read in order.
type objectFile struct {
	r    *blob.Reader
	info fileInfo
}

func (f *objectFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *objectFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *objectFile) Close() error               { return f.r.Close() }

// dirFile is an open folder.
type dirFile struct {
	info fileInfo
	ents []fs.DirEntry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir returns the next n entries (all the rest for n <= 0).
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}
