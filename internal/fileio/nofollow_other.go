//go:build !unix

package fileio

import (
	"errors"
	"os"
)

// noFollowFlags: this platform's open has no O_NOFOLLOW; OpenNoFollow
// relies on its check that the opened file is the one os.Lstat saw.
const noFollowFlags = 0

// nonBlockFlag: no O_NONBLOCK here.
const nonBlockFlag = 0

// clearNonblock: nothing was set.
func clearNonblock(*os.File) error { return nil }

// tryLock: no advisory lock here.
func tryLock(*os.File) error { return errors.ErrUnsupported }
