package faults

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, spec string) *Spec {
	t.Helper()
	s, err := Parse(spec, testBackends)
	require.NoError(t, err)
	return s
}

func TestDecideIsReproducible(t *testing.T) {
	t.Parallel()
	spec := mustParse(t, "rate=0.2,seed=7")
	a := New(spec, testBackends[0], nil, nil)
	b := New(spec, testBackends[0], nil, nil)
	other := New(mustParse(t, "rate=0.2,seed=8"), testBackends[0], nil, nil)
	const n = 20000
	faulted, differs := 0, 0
	perKind := map[Kind]int{}
	for i := range uint64(n) {
		k := a.Decide("pfc", i)
		require.Equal(t, k, b.Decide("pfc", i), "same spec, same decision")
		if k != other.Decide("pfc", i) {
			differs++
		}
		if k != "" {
			faulted++
			perKind[k]++
		}
		assert.NotEqual(t, Final102, k, "hosted has no route answering 102")
	}
	assert.InDelta(t, 0.2, float64(faulted)/n, 0.01)
	assert.Greater(t, differs, n/10, "another seed, other decisions")
	for _, k := range AllKinds[:len(AllKinds)-1] {
		assert.InDelta(t, float64(faulted)/8, perKind[k], float64(faulted)/8*0.2, "kind %s drawn evenly", k)
	}
	// Routes have their own sequences.
	same := 0
	for i := range uint64(1000) {
		if a.Decide("pfc", i) == a.Decide("status", i) {
			same++
		}
	}
	assert.Less(t, same, 1000)
}

func TestDecideRespectsRoutesAndKinds(t *testing.T) {
	t.Parallel()
	bg := New(mustParse(t, "rate=1,routes=download,kinds=102|503"), testBackends[1], nil, nil)
	hosted := New(mustParse(t, "rate=1,kinds=102"), testBackends[0], nil, nil)
	for i := range uint64(200) {
		assert.Contains(t, []Kind{Final102, Status503}, bg.Decide("download", i))
		assert.Empty(t, bg.Decide("submit", i), "not a listed route")
		assert.Empty(t, hosted.Decide("pfc", i), "102 applies to no hosted route")
	}
	none := New(mustParse(t, "rate=0"), testBackends[0], nil, nil)
	for i := range uint64(200) {
		assert.Empty(t, none.Decide("pfc", i))
	}
}

// TestConcurrentSequence checks the concurrency rule: whatever the
// arrival order, the decisions handed out for a route's first n requests
// are the same multiset.
func TestConcurrentSequence(t *testing.T) {
	t.Parallel()
	spec := mustParse(t, "rate=0.3,kinds=latency,latency=1ms,seed=11")
	var mu sync.Mutex
	var seqs []uint64
	kinds := map[Kind]int{}
	inj := New(spec, testBackends[0], nil, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		seqs = append(seqs, e.Seq)
		kinds[e.Kind]++
	})
	srv := httptest.NewServer(inj.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv.Close()
	const n = 64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 8 {
				resp, err := srv.Client().Get(srv.URL + "/pfc")
				if assert.NoError(t, err) {
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	want := map[Kind]int{}
	for i := range uint64(n) {
		want[inj.Decide("pfc", i)]++
	}
	assert.Equal(t, want, kinds)
	assert.ElementsMatch(t, func() []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(i)
		}
		return s
	}(), seqs)
	srv.Client().CloseIdleConnections()
}

// wire serves a handler behind an injector whose every request gets kind,
// and records whether the handler ran and what body it read.
type wire struct {
	srv    *httptest.Server
	ran    atomic.Int32
	read   atomic.Int64
	events chan Event
}

func newWire(t *testing.T, spec string, handler http.HandlerFunc) *wire {
	t.Helper()
	wr := &wire{events: make(chan Event, 16)}
	inj := New(mustParse(t, spec), testBackends[1], nil, func(e Event) { wr.events <- e })
	wr.srv = httptest.NewServer(inj.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wr.ran.Add(1)
		n, _ := io.Copy(io.Discard, r.Body)
		wr.read.Add(n)
		handler(w, r)
	})))
	t.Cleanup(wr.srv.Close)
	return wr
}

// raw sends a request on a fresh connection and returns what came back.
func (wr *wire) raw(t *testing.T, req string) []byte {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(wr.srv.URL, "http://"))
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(time.Minute))) // a bug fails, never hangs
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	b, _ := io.ReadAll(c) // a reset ends the read with an error
	return b
}

func jsonHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"statusEndpoint":"http://x/v2/status/0123456789abcdef01234567"}`)
}

func TestKindsOnTheWire(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 1000)
	put := func(wr *wire) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPut, wr.srv.URL+"/submit", strings.NewReader(body))
		return wr.srv.Client().Do(req)
	}
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		for kind, want := range map[Kind]int{Status500: 500, Status503: 503, Status429: 429} {
			wr := newWire(t, "rate=1,retry-after=2,kinds="+string(kind), jsonHandler)
			resp, err := put(wr)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, want, resp.StatusCode)
			assert.Contains(t, string(b), `"message":"injected fault: `+string(kind))
			assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
			if kind == Status429 {
				assert.Equal(t, "2", resp.Header.Get("Retry-After"))
				assert.Contains(t, string(b), `"code":"rate_limited"`)
			}
			assert.Zero(t, wr.ran.Load(), "the handler never ran")
			ev := <-wr.events
			assert.Equal(t, Event{Backend: "bg", Route: "submit", Seq: 0, Kind: kind, Method: "PUT", URL: ev.URL}, ev)
		}
	})
	t.Run("reset", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []Kind{Reset, ResetBody} {
			wr := newWire(t, "rate=1,kinds="+string(kind), jsonHandler)
			_, err := put(wr)
			require.Error(t, err)
			assert.Zero(t, wr.ran.Load(), "no side effect")
			assert.Zero(t, (<-wr.events).Status)
		}
	})
	t.Run("reset-after", func(t *testing.T) {
		t.Parallel()
		wr := newWire(t, "rate=1,kinds=reset-after", jsonHandler)
		_, err := put(wr)
		require.Error(t, err)
		assert.EqualValues(t, 1, wr.ran.Load(), "the handler ran")
		assert.EqualValues(t, len(body), wr.read.Load())
		assert.Equal(t, 200, (<-wr.events).Status)
	})
	t.Run("truncate", func(t *testing.T) {
		t.Parallel()
		// Without a Content-Length (buffered) and with one (streamed).
		withCL := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			_, _ = io.WriteString(w, body)
		}
		for name, h := range map[string]http.HandlerFunc{"json": jsonHandler, "content-length": withCL} {
			wr := newWire(t, "rate=1,kinds=truncate", h)
			resp, err := wr.srv.Client().Get(wr.srv.URL + "/submit")
			require.NoError(t, err, name)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF, name)
			assert.Equal(t, 200, resp.StatusCode)
			assert.Positive(t, resp.ContentLength)
			assert.EqualValues(t, resp.ContentLength/2, len(b), name)
			assert.EqualValues(t, 1, wr.ran.Load())
			assert.Equal(t, 200, (<-wr.events).Status)
		}
		// An answer without a body is reset.
		wr := newWire(t, "rate=1,kinds=truncate", func(w http.ResponseWriter, r *http.Request) {})
		_, err := wr.srv.Client().Get(wr.srv.URL + "/submit")
		require.Error(t, err)
		assert.EqualValues(t, 1, wr.ran.Load())
	})
	t.Run("latency", func(t *testing.T) {
		t.Parallel()
		wr := newWire(t, "rate=1,kinds=latency,latency=1ms", jsonHandler)
		resp, err := put(wr)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, 200, (<-wr.events).Status)
	})
	t.Run("102", func(t *testing.T) {
		t.Parallel()
		wr := newWire(t, "rate=1,kinds=102", jsonHandler)
		got := wr.raw(t, "GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
		line, _, _ := bufio.NewReader(bytes.NewReader(got)).ReadLine()
		assert.Equal(t, "HTTP/1.1 102 Processing", string(line))
		assert.Contains(t, string(got), "Connection: close\r\n")
		assert.Zero(t, wr.ran.Load())
		// Routes that cannot answer 102 are never faulted by it.
		resp, err := wr.srv.Client().Get(wr.srv.URL + "/submit")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
	})
}

// TestHandlerHijackUnderFault: a handler answering a raw 102 itself runs
// under the after-handler kinds, and its answer is dropped with a reset,
// as the kinds say (a 102 has no body to truncate): it used to pass
// through while the event reported the fault.
func TestHandlerHijackUnderFault(t *testing.T) {
	t.Parallel()
	for _, kind := range []Kind{ResetAfter, Truncate} {
		wr := newWire(t, "rate=1,kinds="+string(kind), func(w http.ResponseWriter, r *http.Request) {
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			_, _ = brw.WriteString("HTTP/1.1 102 Processing\r\nConnection: close\r\n\r\n")
			_ = brw.Flush()
			_ = conn.Close()
		})
		got := wr.raw(t, "GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
		assert.Empty(t, got, kind)
		assert.EqualValues(t, 1, wr.ran.Load(), "%s: the handler ran", kind)
		ev := <-wr.events
		assert.Equal(t, kind, ev.Kind)
		assert.Equal(t, http.StatusProcessing, ev.Status, kind)
	}
}

func TestResetIsAnRST(t *testing.T) {
	t.Parallel()
	wr := newWire(t, "rate=1,kinds=reset", jsonHandler)
	c, err := net.Dial("tcp", strings.TrimPrefix(wr.srv.URL, "http://"))
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(time.Minute)))
	_, err = io.WriteString(c, "GET /submit HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	_, err = io.ReadAll(c)
	var opErr *net.OpError
	if assert.True(t, errors.As(err, &opErr), "a reset, not a clean EOF: %v", err) {
		assert.Contains(t, err.Error(), "reset")
	}
}

// TestHijackingFaultsAreObservedFirst: a fault that closes the connection
// is observed before the close, so a client that saw the fault finds the
// event already reported (a closed http.Server does not wait for a
// hijacked handler, and the event could come after the test's end).
func TestHijackingFaultsAreObservedFirst(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"reset", "reset-after", "truncate", "102"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var observed atomic.Int32
			inj := New(mustParse(t, "rate=1,routes=download,kinds="+kind), testBackends[1], nil, func(Event) {
				time.Sleep(20 * time.Millisecond) // a slow observer
				observed.Add(1)
			})
			srv := httptest.NewServer(inj.Wrap(http.HandlerFunc(jsonHandler)))
			defer srv.Close()
			wr := &wire{srv: srv}
			wr.raw(t, "GET /download HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			assert.Equal(t, int32(1), observed.Load())
		})
	}
}
