package fileio

import (
	"io/fs"
	"os"
)

// FileID identifies a file on its file system (device and inode where the
// platform has them), as a listing saw it; the zero FileID identifies
// none. Compare with Same.
type FileID struct{ id fileID }

// IDOf returns the identity of the file fi describes (from os.Lstat,
// os.Stat, File.Stat or a directory walk's DirEntry.Info); the zero
// FileID when the platform gives none.
func IDOf(fi fs.FileInfo) FileID { return FileID{idOf(fi)} }

// IsZero reports the zero FileID.
func (id FileID) IsZero() bool { return id.id.isZero() }

// Same reports whether fi describes the file id identifies; never for the
// zero FileID.
func (id FileID) Same(fi fs.FileInfo) bool { return !id.IsZero() && fi != nil && id.id.same(fi) }

// Scope is what a bulk run tells the file functions that its work calls
// for one item, passed to them explicitly (bulk.Item.Scope):
// OpenParamScoped, WriteFileAtomicScoped and DownloadFile read it, the
// functions without one do not. A nil *Scope is none.
type Scope struct {
	// TempTag, if set, is put into the names of WriteFileAtomicScoped's
	// temporary files, ".<name>.<TempTag>.<digits>.partial", so that they
	// can be told apart from the files of other writers. It must be a
	// short run of ASCII letters, digits and '-'; anything else is ignored.
	TempTag string
	// Src and SrcID, if SrcID is set, pin the input: OpenParamScoped of
	// exactly Src opens it without following a symbolic link and only if
	// it is the regular file SrcID identifies (the one that was listed).
	Src   string
	SrcID FileID
}

// maxTagLen bounds Scope.TempTag, so that names keep room for the file's
// own name.
const maxTagLen = 32

// tempTag returns s.TempTag when it is usable, else "".
func (s *Scope) tempTag() string {
	if s == nil || s.TempTag == "" || len(s.TempTag) > maxTagLen {
		return ""
	}
	for _, c := range []byte(s.TempTag) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return ""
		}
	}
	return s.TempTag
}

// OpenParamScoped is OpenParam, unless s is a Scope whose SrcID is set
// and whose Src is path: then path is opened without following a
// symbolic link (and without waiting on a named pipe) and must be the
// regular file SrcID identifies. A file replaced since it was listed, by
// a link or anything else, is a *FileError naming param that matches
// ErrNotRegular (ErrSymlink for a link) and apierr.ErrInvalidParameter;
// nothing is read from it.
func OpenParamScoped(s *Scope, param, path string) (*os.File, int64, error) {
	if s == nil || s.SrcID.IsZero() || s.Src != path || path == "" {
		return OpenParam(param, path)
	}
	f, size, err := openExpected(param, path, noFollowFlags, s.SrcID.Same, errNotListed)
	if err != nil {
		return nil, 0, err
	}
	if noFollowFlags == 0 {
		// Without O_NOFOLLOW a link to the listed file itself was
		// followed: the name must still be the file, not a link.
		if lst, err := os.Lstat(path); err != nil || lst.Mode()&fs.ModeSymlink != 0 {
			f.Close()
			return nil, 0, &FileError{Param: param, Path: path, Err: ErrSymlink}
		}
	}
	return f, size, nil
}
