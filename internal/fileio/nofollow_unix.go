//go:build unix

package fileio

import "syscall"

// noFollowFlags make the open of OpenNoFollow refuse a symbolic link as
// the last path element (O_NOFOLLOW), and not wait for a writer when a
// named pipe was swapped in after the check (O_NONBLOCK, which reads of a
// regular file ignore).
const noFollowFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
