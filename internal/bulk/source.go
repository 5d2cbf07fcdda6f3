package bulk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// FSDir lists the files under root in fsys (recursively, in lexical
// order) whose extension is in o.Exts, as Dir does a folder: ID is the
// path relative to root, Src the file's name in fsys, Dst the same
// relative path (or o.Rename's) joined to outDir, with slashes when
// sinkOut (a name in a pfc.Sink), else as a file path. Hidden files and
// directories are left out, and so is anything but a file (isFile).
func FSDir(fsys fs.FS, root, outDir string, sinkOut bool, o DirOptions) ([]Item, error) {
	var fe apierr.FieldErrors
	if !fs.ValidPath(root) {
		fe.Add("inDir", "%q is not a valid name in the source file system (relative, slash-separated; \".\" for its root)", root)
	}
	if outDir == "" {
		fe.Add("outDir", "is required (\".\" for the sink's root)")
	} else if sinkOut && !fs.ValidPath(outDir) {
		fe.Add("outDir", "%q is not a valid name prefix in the sink (relative, slash-separated; \".\" for its root)", outDir)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	exts := o.Exts
	if exts == nil {
		exts = ImageExts
	}
	var items []Item
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == root {
			return nil
		}
		rel := name
		if root != "." {
			rel = strings.TrimPrefix(name, root+"/")
		}
		if rel == name && root != "." || !fs.ValidPath(rel) || !fs.ValidPath(d.Name()) || strings.Contains(d.Name(), "/") ||
			!filepath.IsLocal(filepath.FromSlash(rel)) {
			// A file system that lists an entry named "../x" or "a/b"
			// would put an output outside outDir: refused.
			return fmt.Errorf("pfc: bulk: the source file system lists %q: not the name of an entry inside %q: %w", d.Name(), root, fs.ErrInvalid)
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isFile(d.Type()) || !slices.ContainsFunc(exts, func(e string) bool {
			return strings.EqualFold(path.Ext(name), e)
		}) {
			return nil
		}
		out := rel
		if o.Rename != nil {
			out = filepath.ToSlash(o.Rename(filepath.FromSlash(rel)))
		}
		dst := path.Join(outDir, out)
		if !sinkOut {
			dst = filepath.Join(outDir, filepath.FromSlash(out))
		}
		items = append(items, Item{ID: rel, Src: name, Dst: dst})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// Input is an item's input opened for upload: an io.ReaderAt of Size
// bytes that streams, whatever the source (see OpenInput).
type Input interface {
	io.ReaderAt
	io.Closer
}

// OpenInput opens the input name for its upload: from fsys when it is
// not nil, else the file name (fileio.OpenParamScoped with the item's
// scope, honouring a listed identity). From fsys, a file that is an io.ReaderAt (os.DirFS's,
// embed.FS's) is read in place; any other is read in sequence, and
// reopened for a read that goes back (a retried upload), so nothing is
// held in memory beyond a read's buffer.
func OpenInput(ctx context.Context, scope *fileio.Scope, fsys fs.FS, name string) (Input, int64, error) {
	if fsys == nil {
		return fileio.OpenParamScoped(scope, "srcPath", name)
	}
	f, size, err := openRegular(fsys, name)
	if err != nil {
		return nil, 0, err
	}
	if ra, ok := f.(io.ReaderAt); ok {
		return struct {
			io.ReaderAt
			io.Closer
		}{checkedReaderAt{ra}, f}, size, nil
	}
	in := &fsInput{fsys: fsys, name: name, size: size, f: f}
	in.head = make([]byte, min(size, headLen))
	n, err := io.ReadFull(checkedReader{f}, in.head)
	in.pos = int64(n)
	if err != nil {
		f.Close()
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: in.short(err)}
	}
	return in, size, nil
}

// headLen is how much of an input read in sequence is kept: what a
// content type is sniffed from (http.DetectContentType reads 512
// bytes), so that the sniff and the upload after it need one open.
const headLen = 512

// ErrSourceChanged is the cause of the error of an input whose size
// changed between two opens of one upload.
var ErrSourceChanged = errors.New("pfc: bulk: the input changed while it was read")

// openRegular opens name in fsys and returns it with its size; anything
// but a regular file is refused.
func openRegular(fsys fs.FS, name string) (fs.File, int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	if f == nil {
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("the source file system returned no file: %w", fs.ErrInvalid)}
	}
	st, err := f.Stat()
	if err == nil && st == nil {
		err = &fs.PathError{Op: "stat", Path: name, Err: fmt.Errorf("the source file system returned no file information: %w", fs.ErrInvalid)}
	}
	if err == nil && st.Size() < 0 {
		err = &fs.PathError{Op: "stat", Path: name, Err: fmt.Errorf("negative size %d: %w", st.Size(), fs.ErrInvalid)}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !isFile(st.Mode()) {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: fileio.ErrNotRegular}
	}
	return f, st.Size(), nil
}

// errBadCount is the error of a source file's read that claims more
// bytes than it was given room for (or fewer than none).
var errBadCount = errors.New("pfc: bulk: the source file system's read returned an impossible count")

// checkedReader passes reads on, refusing an impossible count, which
// would make the io functions slice out of range.
type checkedReader struct{ r io.Reader }

func (c checkedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n < 0 || n > len(p) {
		return 0, errBadCount
	}
	return n, err
}

// checkedReaderAt is checkedReader for ReadAt.
type checkedReaderAt struct{ r io.ReaderAt }

func (c checkedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if n < 0 || n > len(p) {
		return 0, errBadCount
	}
	return n, err
}

// isFile reports a mode an input may have: a regular file, or an
// irregular one, which is what an object store's io/fs says of its
// objects (gocloud.dev/blob); not a directory, link, pipe, socket or
// device.
func isFile(m fs.FileMode) bool {
	return m.IsRegular() || m.Type() == fs.ModeIrregular
}

// fsInput reads a file of an fs.FS in sequence as an io.ReaderAt.
type fsInput struct {
	fsys fs.FS
	name string
	size int64

	head []byte // the first bytes, read at the open

	mu     sync.Mutex
	f      fs.File // nil when closed or after a failed reopen
	pos    int64   // the offset of f
	closed bool
}

// ReadAt reads at off: on from the current offset, skipping forward, or
// from a reopened file when off is behind it.
func (in *fsInput) ReadAt(p []byte, off int64) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if off < 0 || in.closed {
		return 0, &fs.PathError{Op: "read", Path: in.name, Err: fs.ErrInvalid}
	}
	if off >= in.size {
		return 0, io.EOF
	}
	var n int
	if off < int64(len(in.head)) {
		n = copy(p, in.head[off:])
		if n == len(p) {
			if off+int64(n) == in.size {
				return n, io.EOF
			}
			return n, nil
		}
		p, off = p[n:], off+int64(n)
	}
	m, err := in.readFile(p, off)
	return n + m, err
}

// readFile is ReadAt from the file, beyond the head.
func (in *fsInput) readFile(p []byte, off int64) (int, error) {
	if in.f == nil || off < in.pos {
		if in.f != nil {
			in.f.Close()
			in.f = nil
		}
		f, size, err := openRegular(in.fsys, in.name)
		if err != nil {
			return 0, err
		}
		if size != in.size {
			f.Close()
			return 0, &fs.PathError{Op: "read", Path: in.name, Err: ErrSourceChanged}
		}
		in.f, in.pos = f, 0
	}
	if off > in.pos {
		n, err := io.CopyN(io.Discard, checkedReader{in.f}, off-in.pos)
		in.pos += n
		if err != nil {
			return 0, in.short(err)
		}
	}
	p = p[:min(int64(len(p)), in.size-off)]
	n, err := io.ReadFull(checkedReader{in.f}, p)
	in.pos += int64(n)
	if err != nil {
		return n, in.short(err)
	}
	if off+int64(n) == in.size {
		return n, io.EOF
	}
	return n, nil
}

// short is the error of a file that ended before its size.
func (in *fsInput) short(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &fs.PathError{Op: "read", Path: in.name, Err: ErrSourceChanged}
	}
	return err
}

// Close closes the file open, if any.
func (in *fsInput) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	if in.f == nil {
		return nil
	}
	err := in.f.Close()
	in.f = nil
	return err
}
