//go:build unix

package fileio

import (
	"errors"
	"os"
	"syscall"
)

// noFollowFlags make the open of OpenNoFollow refuse a symbolic link as
// the last path element (O_NOFOLLOW), and not wait for a writer when a
// named pipe was swapped in after the check (O_NONBLOCK, which reads of a
// regular file ignore).
const noFollowFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// nonBlockFlag makes OpenParam's open of a named pipe swapped in after its
// check return at once instead of waiting for a writer.
const nonBlockFlag = syscall.O_NONBLOCK

// clearNonblock puts f, opened with O_NONBLOCK, back in blocking mode.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

// tryLock takes an exclusive advisory lock (flock) on f without waiting.
func tryLock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(lerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	switch {
	case lerr == nil:
		return nil
	case errors.Is(lerr, syscall.EWOULDBLOCK):
		return ErrLocked
	case errors.Is(lerr, syscall.ENOLCK), errors.Is(lerr, syscall.EOPNOTSUPP), errors.Is(lerr, syscall.ENOSYS):
		return errors.Join(errors.ErrUnsupported, lerr)
	}
	return lerr
}
