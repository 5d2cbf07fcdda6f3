package blobstore

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrTooLarge is returned by Receive when the body is longer than the
// limit; nothing is kept.
var ErrTooLarge = errors.New("blobstore: body too large")

// ErrInvalidName is returned for a blob name that is empty or not a single
// path element.
var ErrInvalidName = errors.New("blobstore: invalid blob name")

// ErrRead is wrapped by Receive's error when reading the body failed (the
// client went away, a deadline passed), as opposed to a failure of the
// store itself; nothing is kept.
var ErrRead = errors.New("blobstore: reading the body failed")

// Store keeps blobs as files in one directory. Incoming data is written to
// a temporary directory beside it and renamed into place when complete, so
// a blob is either absent or whole. It is safe for concurrent use; writers
// of the same name race and the last rename wins.
type Store struct {
	dir string
	tmp string
}

// Open creates (if needed) and opens a store in dir; temporary files go to
// dir/.tmp.
func Open(dir string) (*Store, error) {
	tmp := filepath.Join(dir, ".tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return &Store{dir: dir, tmp: tmp}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Temp is a completely received body waiting in a temporary file.
type Temp struct {
	Path   string            // the temporary file, to Commit or Discard
	Size   int64             // bytes received
	SHA256 [sha256.Size]byte // of the content
}

// Discard removes the temporary file.
func (t *Temp) Discard() { _ = os.Remove(t.Path) }

// Receive streams r into a temporary file, hashing it on the way, and
// stops with ErrTooLarge (removing the file) as soon as more than limit
// bytes have arrived. limit < 0 means no limit. An error reading r wraps
// ErrRead; any other error is the store's own.
func (s *Store) Receive(r io.Reader, limit int64) (*Temp, error) {
	f, err := os.CreateTemp(s.tmp, "recv-*")
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	h := sha256.New()
	src := &readErrs{r: r}
	var lim io.Reader = src
	if limit >= 0 {
		// One byte past the limit tells "exactly limit" from "too long".
		lim = io.LimitReader(src, limit+1)
	}
	n, err := io.Copy(io.MultiWriter(f, h), lim)
	cerr := f.Close()
	if err == nil {
		err = cerr
	}
	switch {
	case err == nil && limit >= 0 && n > limit:
		err = fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	case err != nil && src.err != nil:
		err = fmt.Errorf("%w after %d bytes: %w", ErrRead, n, src.err)
	case err != nil:
		err = fmt.Errorf("blobstore: storing the body after %d bytes: %w", n, err)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return nil, err
	}
	t := &Temp{Path: f.Name(), Size: n}
	h.Sum(t.SHA256[:0])
	return t, nil
}

// readErrs remembers the error of its reader, telling read failures from
// write failures.
type readErrs struct {
	r   io.Reader
	err error
}

func (e *readErrs) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// CreateTemp returns a new empty temporary file for the caller to fill
// and later Commit (by its name) or remove.
func (s *Store) CreateTemp() (*os.File, error) {
	f, err := os.CreateTemp(s.tmp, "out-*")
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return f, nil
}

// Commit moves the temporary file at tmpPath into the store as name,
// replacing any blob of that name, and returns the blob's path.
func (s *Store) Commit(tmpPath, name string) (string, error) {
	dst, err := s.Path(name)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmpPath, dst); err != nil {
		_ = os.Remove(tmpPath)
		return "", fmt.Errorf("blobstore: %w", err)
	}
	return dst, nil
}

// Link makes the existing blob src also available as name (a hard link
// where the file system allows, else a copy) and returns the new path.
func (s *Store) Link(srcPath, name string) (string, error) {
	dst, err := s.Path(name)
	if err != nil {
		return "", err
	}
	_ = os.Remove(dst)
	if err := os.Link(srcPath, dst); err == nil {
		return dst, nil
	}
	in, err := os.Open(srcPath)
	if err != nil {
		return "", fmt.Errorf("blobstore: %w", err)
	}
	defer in.Close()
	out, err := s.CreateTemp()
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(out.Name())
		return "", fmt.Errorf("blobstore: copying blob: %w", err)
	}
	return s.Commit(out.Name(), name)
}

// Path returns where the blob name lives (whether or not it exists).
func (s *Store) Path(name string) (string, error) {
	if name == "" || name == "." || name == ".." || name == ".tmp" || filepath.Base(name) != name {
		return "", fmt.Errorf("%w: %q", ErrInvalidName, name)
	}
	return filepath.Join(s.dir, name), nil
}

// Remove deletes the blob name; a missing blob is not an error.
func (s *Store) Remove(name string) error {
	p, err := s.Path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}
