// Package bulktest holds what the tests of bulk runs share: MemSink, a
// sink in memory. It is imported by test files only.
package bulktest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"sync"
)

// ErrRefused is the error of a Put of the name MemSink.Fail names.
var ErrRefused = errors.New("publish refused by the test")

// MemSink is a pfc.Sink in memory: Put publishes only a complete write,
// and none once its context is done. The zero value is empty.
type MemSink struct {
	mu   sync.Mutex
	objs map[string][]byte
	puts int
	fail string
}

// Put publishes what write writes as name, unless write fails, name is
// the one SetFail named (ErrRefused, after write) or ctx is done.
func (s *MemSink) Put(ctx context.Context, name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts++
	if name == s.fail {
		return ErrRefused
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.objs == nil {
		s.objs = map[string][]byte{}
	}
	s.objs[name] = buf.Bytes()
	return nil
}

// Exists reports whether name was published.
func (s *MemSink) Exists(_ context.Context, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.objs[name]
	return ok, nil
}

// SetFail makes the Puts of name fail (with ErrRefused) after their
// write; "" fails none.
func (s *MemSink) SetFail(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = name
}

// Objects returns a copy of what was published, by name.
func (s *MemSink) Objects() map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.objs)
}

// Puts counts the calls of Put whose write succeeded, published or not.
func (s *MemSink) Puts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.puts
}
