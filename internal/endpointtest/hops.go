package endpointtest

import (
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// HopCounter is an http.RoundTripper that sends through Next and keeps the
// call stack of the last request, to count the function hops from a
// client's method to net/http's Client.Do (see Hops).
type HopCounter struct {
	Next http.RoundTripper

	mu    sync.Mutex
	funcs []string // the last request's stack, innermost first
}

// RoundTrip records the stack and sends r through Next.
func (h *HopCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(1, pc)])
	var funcs []string
	for {
		f, more := frames.Next()
		funcs = append(funcs, f.Function)
		if !more {
			break
		}
	}
	h.mu.Lock()
	h.funcs = funcs
	h.mu.Unlock()
	return h.Next.RoundTrip(r)
}

// Hops returns the number of calls from the function whose name ends
// with from (such as "bgcontainer.(*Client).CheckImage") to
// net/http.(*Client).Do on the last request's stack, with the chain of
// functions, outermost first; -1 when the stack holds neither.
func (h *HopCounter) Hops(from string) (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	do, start := -1, -1
	for i, f := range h.funcs {
		if do < 0 && f == "net/http.(*Client).Do" {
			do = i
		}
		if strings.HasSuffix(f, from) {
			start = i
		}
	}
	if do < 0 || start < do {
		return -1, nil
	}
	chain := make([]string, 0, start-do+1)
	for i := start; i >= do; i-- {
		chain = append(chain, h.funcs[i])
	}
	return start - do, chain
}

// MaxHops is the most function hops a call may take from a client's
// method to http.Client.Do (docs/architecture.md).
const MaxHops = 6

// Check fails t unless the last request went from the function whose name
// ends with from to http.Client.Do in 1 to MaxHops hops.
func (h *HopCounter) Check(t testing.TB, from string) {
	t.Helper()
	if n, chain := h.Hops(from); n < 1 || n > MaxHops {
		t.Errorf("%s: %d hops to http.Client.Do, more than %d (or none): %v", from, n, MaxHops, chain)
	}
}
