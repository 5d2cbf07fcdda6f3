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

// touch records the age of dir/name on the clock: always when reset (a new
// upload or output), else only if it has none yet (a file found in input/).
func (s *Service) touch(dir, name string, reset bool) {
	k := path.Join(dir, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[k]; reset || !ok {
		s.seen[k] = s.clock.Now()
	}
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
// time the service saw it (a correction or a sweep). Hidden files (the
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
			s.mu.Lock()
			first, ok := s.seen[k]
			if !ok {
				first = now
				s.seen[k] = now
			}
			s.mu.Unlock()
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
