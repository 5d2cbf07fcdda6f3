package containersvc

import (
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// seenFile is what the sweep remembers of a file: when its age began and
// which file it was then.
type seenFile struct {
	first time.Time   // on the clock
	id    os.FileInfo // the file as seen then; nil when it could not be read
}

// sameFile reports whether cur is still the file recorded as old: the same
// file (device and inode, which a new file may reuse once the old one is
// deleted), size and modification time. A file that cannot be read (nil)
// is not taken for a replacement.
func sameFile(old, cur os.FileInfo) bool {
	if old == nil || cur == nil {
		return true
	}
	return os.SameFile(old, cur) && old.Size() == cur.Size() && old.ModTime().Equal(cur.ModTime())
}

// statFile returns the identity of dir/name under the root: the file a
// symbolic link names, else the link itself; nil when neither can be read.
func (s *Service) statFile(dir, name string) os.FileInfo {
	p := filepath.Join(s.mounts.Root, dir, name)
	fi, err := os.Stat(p)
	if err != nil {
		if fi, err = os.Lstat(p); err != nil {
			return nil
		}
	}
	return fi
}

// touch records the age of dir/name on the clock: always when reset (a new
// upload or output), else only if it has none yet (a file found in input/)
// or the file is no longer the one its age belongs to (replaced under the
// same name since).
func (s *Service) touch(dir, name string, reset bool) {
	s.observe(path.Join(dir, name), s.statFile(dir, name), reset, s.clock.Now())
}

// observe records the file id seen as k at now and returns when its age
// began: now when reset, when k has no age yet or when id is another file
// than the one recorded; the recorded time otherwise.
func (s *Service) observe(k string, id os.FileInfo, reset bool, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.seen[k]
	switch {
	case reset || !ok || !sameFile(old.id, id):
		s.seen[k] = seenFile{first: now, id: id}
		return now
	case old.id == nil && id != nil:
		s.seen[k] = seenFile{first: old.first, id: id}
	}
	return old.first
}

// sweepTick runs a sweep (as tracked work) and schedules the next one;
// once the service is closed the tracker schedules nothing.
func (s *Service) sweepTick() {
	s.Sweep()
	s.act.AfterFunc(SweepInterval, s.sweepTick)
}

// Sweep deletes the files of input/ and output/ older than the image TTL
// (PFC_IMG_CACHE_TTL) and returns their dir-relative names ("input/x").
// It runs every SweepInterval on the clock; tests may call it directly.
//
// Ages are measured on the service's clock (clock.Since: on a scaled
// clock the TTL is scaled like every other duration): from the upload, the
// correction that wrote an output, or, for a file the service did not
// write (direct file mode, files left from an earlier run), from the first
// time the service saw it (a correction or a sweep). A file replaced under
// the same name (deleted and placed again, or rewritten: another file,
// size or modification time than when its age began) starts a new age
// when the service next sees it. Hidden files (the
// mock's temporaries) are left alone. A file that cannot be deleted is
// logged with cleanUpFileMessage (info) and tried again on the next sweep.
func (s *Service) Sweep() []string {
	now := s.clock.Now()
	var deleted []string
	live := map[string]bool{}
	for _, dir := range []string{DirInput, DirOutput} {
		entries, err := os.ReadDir(filepath.Join(s.mounts.Root, dir))
		if err != nil {
			s.logID(slog.LevelInfo, MsgCleanUpFile, "dir", dir, "error", err.Error())
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
				continue
			}
			k := path.Join(dir, e.Name())
			first := s.observe(k, s.statFile(dir, e.Name()), false, now)
			live[k] = true
			age := clock.Since(s.clock, first)
			if age < s.cfg.ImageTTL {
				continue
			}
			if err := s.remove(filepath.Join(s.mounts.Root, dir, e.Name())); err != nil && !os.IsNotExist(err) {
				s.logID(slog.LevelInfo, MsgCleanUpFile, "file", k, "error", err.Error())
				continue
			}
			delete(live, k)
			deleted = append(deleted, k)
			s.logID(slog.LevelDebug, MsgCleanedUp, "file", k, "age", age.Round(time.Second).String())
		}
	}
	// Forget the files that are gone.
	s.mu.Lock()
	for k := range s.seen {
		if !live[k] {
			delete(s.seen, k)
		}
	}
	s.mu.Unlock()
	return deleted
}
