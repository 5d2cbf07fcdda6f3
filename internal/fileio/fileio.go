package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// Sentinels of the errors of this package.
var (
	// ErrNotRegular is in the chain of Open's error for a directory, a
	// device, a pipe or anything else that is not a regular file.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrNotImage is in the chain of SniffImage's error for content that is
	// neither JPEG nor PNG.
	ErrNotImage = errors.New("is not a JPEG or PNG image")
	// ErrSymlink is in the chain of OpenNoFollow's and LstatRegular's error
	// for a symbolic link; it matches ErrNotRegular too.
	ErrSymlink error = notRegular("is a symbolic link, not a regular file")
	// errReplaced: the file OpenNoFollow opened is not the one it checked.
	errReplaced error = notRegular("was replaced while it was opened")
	// errNotListed: the file OpenParamScoped opened is not the one that
	// was listed.
	errNotListed error = notRegular("is not the file that was listed (it was replaced since)")
)

// notRegular is a more precise ErrNotRegular.
type notRegular string

func (e notRegular) Error() string { return string(e) }

func (notRegular) Unwrap() error { return ErrNotRegular }

// FileError is a file the SDK could not use, naming the parameter that gave
// it. For an empty path, a file that is not regular or content that is not
// an image it also matches apierr.ErrInvalidParameter; an operating-system
// failure keeps its cause (errors.Is(err, fs.ErrNotExist) ...).
type FileError struct {
	// Param is the parameter that named the file, e.g. "srcPath".
	Param string
	// Path is the file's path ("" for content given as a reader).
	Path string
	// Err is the cause.
	Err error
}

// Error returns "pfc: <param> <path>: <cause>".
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("pfc: ")
	b.WriteString(e.Param)
	if e.Path != "" {
		fmt.Fprintf(&b, " %q", e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause, and apierr.ErrInvalidParameter when the input
// itself is at fault.
func (e *FileError) Unwrap() []error {
	if errors.Is(e.Err, ErrNotRegular) || errors.Is(e.Err, ErrNotImage) || errors.Is(e.Err, errEmptyPath) {
		return []error{e.Err, apierr.ErrInvalidParameter}
	}
	return []error{e.Err}
}

var errEmptyPath = errors.New("is required")

// Open opens the regular file at path for reading and returns it with its
// size. Errors are *FileError naming the parameter "path"; see OpenParam.
func Open(path string) (*os.File, int64, error) { return OpenParam("path", path) }

// OpenParam is Open with the name of the caller's parameter, used in errors.
// It follows symbolic links: path is the caller's own choice, and a link
// to an image is a fine thing to pass. A name a server chose goes through
// OpenNoFollow instead.
func OpenParam(param, path string) (*os.File, int64, error) { return openParam(param, path, nil) }

// openParam is OpenParam; between, if set, runs between the check and the
// open (a test swaps the file there).
func openParam(param, path string, between func()) (*os.File, int64, error) {
	if path == "" {
		return nil, 0, &FileError{Param: param, Err: errEmptyPath}
	}
	// Check before opening: opening a named pipe for reading blocks until a
	// writer appears, and no context can end that wait. The check after
	// opening catches a file swapped in between, which O_NONBLOCK (where
	// the platform has it) opens without waiting for a writer.
	if st, err := os.Stat(path); err != nil {
		return nil, 0, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	} else if !st.Mode().IsRegular() {
		return nil, 0, &FileError{Param: param, Path: path, Err: ErrNotRegular}
	}
	if between != nil {
		between()
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlockFlag, 0)
	if err != nil {
		return nil, 0, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err == nil {
		err = clearNonblock(f)
	}
	if err != nil {
		f.Close()
		return nil, 0, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	}
	return f, st.Size(), nil
}

// LstatRegular checks, without following a symbolic link, that path's
// last element is a regular file, and returns its information. Directories
// above it are followed as usual. A symbolic link is a *FileError naming
// param that matches ErrSymlink and ErrNotRegular; a directory, device or
// pipe one that matches ErrNotRegular; an operating-system failure keeps
// its cause (errors.Is(err, fs.ErrNotExist) ...).
func LstatRegular(param, path string) (fs.FileInfo, error) {
	if path == "" {
		return nil, &FileError{Param: param, Err: errEmptyPath}
	}
	st, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, &FileError{Param: param, Path: path, Err: ErrSymlink}
	case !st.Mode().IsRegular():
		return nil, &FileError{Param: param, Path: path, Err: ErrNotRegular}
	}
	return st, nil
}

// OpenNoFollow is OpenParam for a file whose name the caller does not
// trust (a server chose it): path's last element must be a regular file
// itself, never a symbolic link, so that what is read is the file in
// path's directory and nothing a link points to elsewhere. It checks path
// with LstatRegular, opens it (with O_NOFOLLOW and O_NONBLOCK where the
// platform has them, so that a link or a pipe swapped in after the check
// is not followed or waited on) and makes sure the file opened is the
// regular file checked (os.SameFile), which closes that race where the
// platform lacks O_NOFOLLOW. Errors are those of LstatRegular; a file
// replaced between the check and the open matches ErrNotRegular.
func OpenNoFollow(param, path string) (*os.File, int64, error) {
	return openNoFollow(param, path, noFollowFlags, nil)
}

// openNoFollow is OpenNoFollow with the open's extra flags and, for tests,
// a function called between the check and the open.
func openNoFollow(param, path string, flags int, between func()) (*os.File, int64, error) {
	checked, err := LstatRegular(param, path)
	if err != nil {
		return nil, 0, err
	}
	if between != nil {
		between()
	}
	return openExpected(param, path, flags, func(st fs.FileInfo) bool { return os.SameFile(checked, st) }, errReplaced)
}

// openExpected opens path read-only with flags and returns it when it is
// a regular file that expected accepts; otherwise it closes it and
// returns a *FileError naming param: ErrSymlink for a link the open
// refused, ErrNotRegular for anything but a regular file, mismatch for a
// regular file expected refuses.
func openExpected(param, path string, flags int, expected func(fs.FileInfo) bool, mismatch error) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|flags, 0)
	if err != nil {
		// O_NOFOLLOW's refusal of a link swapped in is ELOOP on Linux,
		// EMLINK on FreeBSD, EFTYPE on NetBSD: name it plainly.
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, 0, &FileError{Param: param, Path: path, Err: ErrSymlink}
		}
		return nil, 0, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, 0, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	case !st.Mode().IsRegular():
		f.Close()
		return nil, 0, &FileError{Param: param, Path: path, Err: ErrNotRegular}
	case !expected(st):
		f.Close()
		return nil, 0, &FileError{Param: param, Path: path, Err: mismatch}
	}
	return f, st.Size(), nil
}

// unwrapPathError drops *fs.PathError's own "open <path>:" prefix, which
// FileError already says.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sniffLen is what http.DetectContentType looks at.
const sniffLen = 512

// DetectContentType returns the media type of the first 512 bytes of r
// (http.DetectContentType), "application/octet-stream" when they cannot be
// read.
func DetectContentType(r io.ReaderAt, size int64) string {
	if NilReader(r) || size <= 0 {
		return "application/octet-stream"
	}
	head := make([]byte, min(size, sniffLen))
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "application/octet-stream"
	}
	// The images the APIs take are told by their first bytes, before the
	// dozens of signatures of http.DetectContentType, which gives the same
	// answer for them (TestDetectContentTypeMagic).
	switch head = head[:n]; {
	case bytes.HasPrefix(head, jpegMagic):
		return "image/jpeg"
	case bytes.HasPrefix(head, pngMagic):
		return "image/png"
	}
	return http.DetectContentType(head)
}

// NilReader reports whether r is nil or a nil pointer (a nil
// *bytes.Reader or *os.File put in the interface): the client methods
// refuse both as a missing source, where using the second would panic,
// possibly in net/http's goroutine, out of the caller's reach.
func NilReader(r io.ReaderAt) bool {
	if r == nil {
		return true
	}
	v := reflect.ValueOf(r)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// jpegMagic and pngMagic are the signatures http.DetectContentType checks
// for JPEG and PNG.
var (
	jpegMagic = []byte("\xFF\xD8\xFF")
	pngMagic  = []byte("\x89PNG\x0D\x0A\x1A\x0A")
)

// SniffImage returns "image/jpeg" or "image/png" from the content of r,
// whatever a file name says; anything else is a *FileError (param "image")
// matching ErrNotImage and apierr.ErrInvalidParameter.
func SniffImage(r io.ReaderAt, size int64) (string, error) {
	switch ct := DetectContentType(r, size); ct {
	case "image/jpeg", "image/png":
		return ct, nil
	default:
		return "", &FileError{Param: "image", Err: fmt.Errorf("%w (content looks like %s)", ErrNotImage, ct)}
	}
}

// WriteFileAtomic calls write with a temporary file in path's directory
// and, when write succeeds, fsyncs it, gives it its mode (the permission
// bits of the file it replaces, or 0644) and renames it to path. On any
// failure the temporary file is removed and path is untouched. The
// temporary file is named ".<name>.<digits>.partial", name being path's
// base name cut short where needed to keep the whole within 255 bytes, so
// every name up to 255 bytes can be written.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return writeFileAtomic(path, "", write)
}

// WriteFileAtomicScoped is WriteFileAtomic, the temporary file named
// ".<name>.<tag>.<digits>.partial" when s has a TempTag (a bulk run's, so
// that its cleanup knows its own files). A nil s is no Scope.
func WriteFileAtomicScoped(s *Scope, path string, write func(io.Writer) error) error {
	return writeFileAtomic(path, s.tempTag(), write)
}

func writeFileAtomic(path, tag string, write func(io.Writer) error) (err error) {
	if path == "" {
		return &FileError{Param: "path", Err: errEmptyPath}
	}
	if write == nil {
		return &FileError{Param: "write", Path: path, Err: errors.New("is nil")}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(filepath.Base(path), tag))
	if err != nil {
		return &FileError{Param: "path", Path: path, Err: unwrapPathError(err)}
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; give the result the mode an
	// overwritten file had, or 0644 for a new one.
	mode := os.FileMode(0o644)
	if st, statErr := os.Stat(path); statErr == nil {
		if !st.Mode().IsRegular() {
			return &FileError{Param: "path", Path: path, Err: ErrNotRegular}
		}
		mode = st.Mode().Perm()
	}
	if err = tmp.Chmod(mode); err != nil {
		return &FileError{Param: "path", Path: path, Err: unwrapPathError(err)}
	}
	if err = tmp.Sync(); err != nil {
		return &FileError{Param: "path", Path: path, Err: unwrapPathError(err)}
	}
	if err = tmp.Close(); err != nil {
		return &FileError{Param: "path", Path: path, Err: unwrapPathError(err)}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return &FileError{Param: "path", Path: path, Err: unwrapPathError(err)}
	}
	syncDir(dir)
	return nil
}

// maxNameLen is the longest file name, in bytes, that the common file
// systems take (NAME_MAX; Windows counts UTF-16 units, never more).
const maxNameLen = 255

// maxRandomLen is the longest random part os.CreateTemp puts at the "*"
// of its pattern: a uint32 in decimal.
const maxRandomLen = 10

// tempPattern is os.CreateTemp's pattern for the temporary file of a file
// named base: ".<base>.<digits>.partial", or ".<base>.<tag>.<digits>.partial"
// with a tag, the names the bulk runner's cleanup looks for. base is cut,
// on a UTF-8 boundary, to what keeps the whole name within maxNameLen,
// so that any name a file system takes can be written atomically.
func tempPattern(base, tag string) string {
	suffix := ".*.partial"
	if tag != "" {
		suffix = "." + tag + suffix
	}
	room := maxNameLen - len(".") - (len(suffix) - len("*")) - maxRandomLen
	if len(base) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		if cut == 0 { // not UTF-8: cut anywhere
			cut = room
		}
		base = base[:cut]
	}
	return "." + base + suffix
}

// syncDir makes the rename durable where the platform allows it; failures
// are ignored (the file itself was already synced).
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// CopyLimited copies src to dst like io.Copy, writing at most limit bytes
// (limit <= 0: no bound). A body longer than limit fails with an error
// matching apierr.ErrDownloadTooLarge: at once, with nothing written, when
// declared (a Content-Length; negative when unknown) already exceeds it,
// else after the first limit bytes. Callers writing to a file use
// WriteFileAtomic, so that nothing of a refused download is left behind.
//
// A body that ends before declared bytes (net/http's io.ErrUnexpectedEOF
// for a short Content-Length or a missing final chunk, or a clean end
// short of declared) fails with an error matching
// apierr.ErrTruncatedResponse, its cause kept (see ShortBody).
func CopyLimited(dst io.Writer, src io.Reader, declared, limit int64) (int64, error) {
	if limit <= 0 {
		n, err := io.Copy(dst, src)
		return n, ShortBody(err, n, declared)
	}
	if declared > limit {
		return 0, fmt.Errorf("%w: %d bytes announced, limit %d", apierr.ErrDownloadTooLarge, declared, limit)
	}
	n, err := io.Copy(dst, io.LimitReader(src, limit))
	if err != nil || n < limit {
		return n, ShortBody(err, n, declared)
	}
	// Exactly limit bytes so far: the body must end here.
	var probe [1]byte
	if k, _ := io.ReadFull(src, probe[:]); k > 0 {
		return n, fmt.Errorf("%w: more than %d bytes", apierr.ErrDownloadTooLarge, limit)
	}
	return n, nil
}

// ShortBody reports a response body cut off before its end: when err is
// (or wraps) io.ErrUnexpectedEOF, or err is nil but only n of the declared
// bytes (a Content-Length; negative when unknown) arrived, the result
// matches apierr.ErrTruncatedResponse and says how many bytes arrived; the
// cause stays in the chain. Any other err, one that already matches
// apierr.ErrTruncatedResponse (the transport's, for a body it saw cut off)
// included, is returned unchanged.
func ShortBody(err error, n, declared int64) error {
	switch {
	case errors.Is(err, apierr.ErrTruncatedResponse):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF) && declared >= 0:
		return fmt.Errorf("%w: got %d of %d bytes: %w", apierr.ErrTruncatedResponse, n, declared, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: after %d bytes: %w", apierr.ErrTruncatedResponse, n, err)
	case err == nil && declared >= 0 && n < declared:
		return fmt.Errorf("%w: got %d of %d bytes: %w", apierr.ErrTruncatedResponse, n, declared, io.ErrUnexpectedEOF)
	}
	return err
}

// ErrLocked is TryLock's error for a file another open file holds locked.
var ErrLocked = errors.New("is locked by another run")

// TryLock takes an exclusive advisory lock on f (flock where the platform
// has it), held until f is closed, without waiting: ErrLocked when another
// open file (of this or another process) holds it, an error matching
// errors.ErrUnsupported where the platform or file system has no such
// lock.
func TryLock(f *os.File) error { return tryLock(f) }

// OpenFileNoFollow opens path like os.OpenFile(path, flag, perm), but only
// a regular file: a symbolic link as its last element is refused, not
// followed (O_NOFOLLOW where the platform has it), and a named pipe,
// device or directory is refused without waiting on it (O_NONBLOCK, which
// is cleared again on the regular file returned). Errors are *FileError
// naming param: ErrSymlink, ErrNotRegular, or the operating system's
// cause (errors.Is(err, fs.ErrNotExist) ...).
func OpenFileNoFollow(param, path string, flag int, perm os.FileMode) (*os.File, error) {
	if path == "" {
		return nil, &FileError{Param: param, Err: errEmptyPath}
	}
	// Checked before opening too where O_NOFOLLOW is missing: there the
	// open itself would follow a link or wait on a pipe.
	if noFollowFlags == 0 {
		if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, &FileError{Param: param, Path: path, Err: ErrSymlink}
		} else if err == nil && !st.Mode().IsRegular() {
			return nil, &FileError{Param: param, Path: path, Err: ErrNotRegular}
		}
	}
	f, err := os.OpenFile(path, flag|noFollowFlags, perm)
	if err != nil {
		// O_NOFOLLOW's refusal is ELOOP on Linux, EMLINK on FreeBSD.
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, &FileError{Param: param, Path: path, Err: ErrSymlink}
		}
		return nil, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err == nil && noFollowFlags == 0 {
		// The name must still be this file, not a link swapped in.
		if lst, lerr := os.Lstat(path); lerr != nil || lst.Mode()&fs.ModeSymlink != 0 || !os.SameFile(lst, st) {
			err = errReplaced
		}
	}
	if err == nil {
		err = clearNonblock(f)
	}
	if err != nil {
		f.Close()
		return nil, &FileError{Param: param, Path: path, Err: unwrapPathError(err)}
	}
	return f, nil
}

// CheckStream adds to fe the problems of a one-call flow's source and
// destination: src missing (NilReader), size negative, dst nil.
func CheckStream(fe *apierr.FieldErrors, src io.ReaderAt, size int64, dst io.Writer) {
	if NilReader(src) {
		fe.Add("src", "is required")
	}
	if size < 0 {
		fe.Add("size", "must not be negative, got %d", size)
	}
	if dst == nil {
		fe.Add("dst", "is required")
	}
}

// DownloadFile writes path atomically (WriteFileAtomicScoped, s nil for
// no Scope) with the bytes download writes, and returns their number; 0
// when it fails, path then untouched.
func DownloadFile(s *Scope, path string, download func(io.Writer) (int64, error)) (int64, error) {
	var n int64
	err := WriteFileAtomicScoped(s, path, func(w io.Writer) error {
		var err error
		n, err = download(w)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
