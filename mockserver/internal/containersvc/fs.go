package containersvc

import (
	"io"
	"os"
)

// tempFile is what uploads and corrections write through: the hidden
// temporary file in input/ or output/ that is renamed once complete. It is
// an *os.File in service; tests substitute one whose Write or Close fails
// (a full disk, an I/O error) to reach the error table's rows for real.
type tempFile interface {
	io.Writer
	Close() error
	Name() string
}

// osCreateTemp is os.CreateTemp as a tempFile, the Service's createTemp.
func osCreateTemp(dir, pattern string) (tempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return f, nil
}
