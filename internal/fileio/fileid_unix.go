//go:build unix

package fileio

import (
	"io/fs"
	"syscall"
)

// fileID is a file's device and inode numbers.
type fileID struct {
	dev, ino uint64
	ok       bool
}

func idOf(fi fs.FileInfo) fileID {
	if fi == nil {
		return fileID{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), ok: true}
}

func (id fileID) isZero() bool { return !id.ok }

func (id fileID) same(fi fs.FileInfo) bool {
	other := idOf(fi)
	return other.ok && other.dev == id.dev && other.ino == id.ino
}
