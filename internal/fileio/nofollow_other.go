//go:build !unix

package fileio

// noFollowFlags: this platform's open has no O_NOFOLLOW; OpenNoFollow
// relies on its check that the opened file is the one os.Lstat saw.
const noFollowFlags = 0
