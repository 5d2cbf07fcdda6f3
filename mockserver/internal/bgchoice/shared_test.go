package bgchoice

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedEngine is a stand-in engine that records its closing.
type countedEngine struct {
	id     int
	closed bool
}

func newCountingOpener(failFirst bool) (*sharedOpener[*countedEngine], *int) {
	opened := 0
	fail := failFirst
	return &sharedOpener[*countedEngine]{
		open: func() (*countedEngine, error) {
			if fail {
				fail = false
				return nil, errors.New("no device")
			}
			opened++
			return &countedEngine{id: opened}, nil
		},
		close: func(e *countedEngine) error { e.closed = true; return nil },
	}, &opened
}

// TestSharedOpenerSharesUntilTheLastRelease checks one engine for all
// holders, closed once by the last release (each release counting once),
// and a new one opened after that.
func TestSharedOpenerSharesUntilTheLastRelease(t *testing.T) {
	t.Parallel()
	s, opened := newCountingOpener(false)
	a, relA, err := s.acquire()
	require.NoError(t, err)
	b, relB, err := s.acquire()
	require.NoError(t, err)
	assert.Same(t, a, b)
	assert.Equal(t, 1, *opened)

	require.NoError(t, relA())
	require.NoError(t, relA(), "idempotent: does not release B's hold")
	assert.False(t, a.closed)
	require.NoError(t, relB())
	assert.True(t, a.closed, "last release closes")

	c, relC, err := s.acquire()
	require.NoError(t, err)
	assert.NotSame(t, a, c)
	assert.Equal(t, 2, *opened)
	require.NoError(t, relC())
}

// TestSharedOpenerRetriesAfterAFailedOpen checks that a failed open is
// returned and not remembered.
func TestSharedOpenerRetriesAfterAFailedOpen(t *testing.T) {
	t.Parallel()
	s, opened := newCountingOpener(true)
	_, rel, err := s.acquire()
	require.Error(t, err)
	assert.Nil(t, rel)
	e, rel, err := s.acquire()
	require.NoError(t, err)
	assert.Equal(t, 1, e.id)
	assert.Equal(t, 1, *opened)
	require.NoError(t, rel())
}

// TestSharedOpenerConcurrent acquires and releases from many goroutines
// (run with -race): every holder sees an open engine, and all are closed
// at the end.
func TestSharedOpenerConcurrent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var all []*countedEngine
	s := &sharedOpener[*countedEngine]{
		open: func() (*countedEngine, error) {
			e := &countedEngine{}
			mu.Lock()
			all = append(all, e)
			mu.Unlock()
			return e, nil
		},
		close: func(e *countedEngine) error {
			mu.Lock()
			defer mu.Unlock()
			e.closed = true
			return nil
		},
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				e, rel, err := s.acquire()
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				assert.False(t, e.closed, "held engine is open")
				mu.Unlock()
				assert.NoError(t, rel())
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, e := range all {
		assert.True(t, e.closed)
	}
}
