package bgchoice

import (
	"sync"
)

// sharedOpener opens one engine for the whole process and hands it to
// every caller, counting them: the GPU engine owns a device context, a
// worker thread and pools of device and host memory, which every mock of
// the process (a hosted and a background-removal backend in one binary,
// or the many mocks of a test run) should share rather than each open
// its own. The engine is closed when the last caller releases it; the
// next acquire opens a new one. A failed open is not remembered, so a
// later acquire tries again.
type sharedOpener[E any] struct {
	open  func() (E, error)
	close func(E) error

	mu   sync.Mutex
	e    E
	refs int
}

// acquire returns the shared engine, opening it if none is open, and the
// function that releases this caller's hold (idempotent).
func (s *sharedOpener[E]) acquire() (E, func() error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == 0 {
		e, err := s.open()
		if err != nil {
			var zero E
			return zero, nil, err
		}
		s.e = e
	}
	s.refs++
	e := s.e
	var once sync.Once
	var closeErr error
	release := func() error {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.refs--
			if s.refs == 0 {
				closeErr = s.close(s.e)
				var zero E
				s.e = zero
			}
		})
		return closeErr
	}
	return e, release, nil
}
