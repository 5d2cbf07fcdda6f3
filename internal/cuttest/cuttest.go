// Package cuttest is what the clients' tests of truncated answers share:
// a Cutter that cuts a route's first answers off mid-body, as the mocks'
// truncate fault does (the full Content-Length is announced, half the
// body is sent, then the connection closes or, after SetReset, is reset),
// and the input directory of a CorrectFile whose download is cut (Input,
// OnlyInput).
package cuttest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cutter counts the answers of each route and cuts the first ones off.
type Cutter struct {
	mu    sync.Mutex
	cuts  map[string]int
	calls map[string]int
	reset bool // a cut answer ends with a reset (SO_LINGER 0), not a close
}

// New returns a Cutter that cuts the first cuts[route] answers of each
// route.
func New(cuts map[string]int) *Cutter {
	return &Cutter{cuts: cuts, calls: map[string]int{}}
}

// SetReset makes the cut answers end with a connection reset instead of
// a close.
func (c *Cutter) SetReset() {
	c.mu.Lock()
	c.reset = true
	c.mu.Unlock()
}

// Write answers body for route on w, with Content-Type contentType (none
// when empty) and its Content-Length, cut off at half the body while the
// route has cuts left.
func (c *Cutter) Write(w http.ResponseWriter, route, contentType string, body []byte) {
	c.mu.Lock()
	c.calls[route]++
	cut := c.calls[route] <= c.cuts[route]
	reset := c.reset
	c.mu.Unlock()
	if cut && reset {
		resetHalf(w, body)
		return
	}
	if contentType != "" {
		w.Header().Set("Content-Type", contentType)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if cut {
		body = body[:len(body)/2]
	}
	_, _ = w.Write(body)
}

// Count returns how many answers route has had.
func (c *Cutter) Count(route string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[route]
}

// resetHalf answers with body's Content-Length and half of it, then resets
// the connection (SO_LINGER 0).
func resetHalf(w http.ResponseWriter, body []byte) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
	_ = buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}

// Input writes data to "in.jpg" in a new temporary directory and
// returns the directory, that file and "out.jpg" beside it.
func Input(t testing.TB, data []byte) (dir, in, out string) {
	t.Helper()
	dir = t.TempDir()
	in, out = filepath.Join(dir, "in.jpg"), filepath.Join(dir, "out.jpg")
	require.NoError(t, os.WriteFile(in, data, 0o600))
	return dir, in, out
}

// OnlyInput fails t unless Input's dir holds nothing but "in.jpg": a cut
// download left no file behind.
func OnlyInput(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, "in.jpg", e.Name(), "nothing but the input is left")
	}
}
