//go:build !unix

package fileio

import (
	"io/fs"
	"os"
)

// fileID keeps the listing's information, which os.SameFile compares.
type fileID struct{ fi fs.FileInfo }

func idOf(fi fs.FileInfo) fileID { return fileID{fi} }

func (id fileID) isZero() bool { return id.fi == nil }

func (id fileID) same(fi fs.FileInfo) bool { return os.SameFile(id.fi, fi) }
