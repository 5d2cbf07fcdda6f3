package faults

import (
	"bufio"
	"bytes"
	"context"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// CodeRateLimited is the error code of an injected 429.
const CodeRateLimited = httpx.CodeRateLimited

// Event describes one request that passed through an Injector.
type Event struct {
	Backend string
	Route   string
	// Seq is the request's index among those of its route (from 0).
	Seq uint64
	// Kind is the fault injected; "" for none.
	Kind Kind
	// Method and URL are the request's (URL is the request's own: path
	// and query as received; do not modify it).
	Method string
	URL    *url.URL
	// Status is the status the handler answered, 0 when it did not run
	// (a fault before the handler) or hijacked the connection.
	Status int
}

// Injector wraps a backend's handler and injects the faults of its
// configuration.
type Injector struct {
	backend Backend
	cfg     Config
	log     *slog.Logger
	observe func(Event)
	routes  map[string]*routeState
}

type routeState struct {
	salt  uint64
	n     atomic.Uint64
	kinds []Kind // the configured kinds that apply to the route; nil: never faulted
}

// New returns the injector of backend under spec, or nil when the spec
// gives the backend no faults and observe is nil. log (may be nil)
// receives an Info record per injected fault; observe (may be nil) is
// called, concurrently, after every request.
func New(spec *Spec, backend Backend, log *slog.Logger, observe func(Event)) *Injector {
	cfg, ok := spec.For(backend.Name)
	if !ok && observe == nil {
		return nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	inj := &Injector{backend: backend, cfg: cfg, log: log, observe: observe, routes: map[string]*routeState{}}
	for _, r := range backend.Routes {
		st := &routeState{salt: hashString(backend.Name + "/" + r.Name)}
		if ok && cfg.Rate > 0 && (len(cfg.Routes) == 0 || slices.Contains(cfg.Routes, r.Name)) {
			for _, k := range cfg.Kinds {
				if k != Final102 || r.Final102 {
					st.kinds = append(st.kinds, k)
				}
			}
		}
		inj.routes[r.Name] = st
	}
	return inj
}

// Wrap returns next with the injector in front; a nil injector returns
// next.
func (inj *Injector) Wrap(next http.Handler) http.Handler {
	if inj == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inj.serve(w, r, next) })
}

// Decide returns the decision for the n-th request of route: the kind,
// or "" for none. It is a pure function of the seed, the backend, the
// route and n.
func (inj *Injector) Decide(route string, n uint64) Kind {
	st, ok := inj.routes[route]
	if !ok || len(st.kinds) == 0 {
		return ""
	}
	return decide(inj.cfg.Seed, st.salt, n, inj.cfg.Rate, st.kinds)
}

func decide(seed, salt, n uint64, rate float64, kinds []Kind) Kind {
	u := splitmix64(seed ^ splitmix64(salt+n*0x9e3779b97f4a7c15))
	if float64(u>>11)/(1<<53) >= rate {
		return ""
	}
	return kinds[splitmix64(u)%uint64(len(kinds))]
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, s)
	return h.Sum64()
}

func (inj *Injector) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	route := inj.backend.Classify(r.Method, r.URL.Path)
	st, ok := inj.routes[route]
	if !ok {
		// A classifier bug: serve without faults rather than fail.
		next.ServeHTTP(w, r)
		return
	}
	n := st.n.Add(1) - 1
	kind := Kind("")
	if len(st.kinds) > 0 {
		kind = decide(inj.cfg.Seed, st.salt, n, inj.cfg.Rate, st.kinds)
	}
	ev := Event{Backend: inj.backend.Name, Route: route, Seq: n, Kind: kind, Method: r.Method, URL: r.URL}
	if kind != "" {
		// Not the path: it may hold a secret (the bg container's
		// /Authorize/{license_key}).
		inj.log.Info("fault injected", "backend", inj.backend.Name, "route", route, "seq", n, "kind", string(kind), "method", r.Method)
	}
	// The event is observed once: before a hijacked connection is closed
	// (a closed http.Server does not wait for a hijacked handler, so a test
	// that closes its server as soon as the client saw the fault must find
	// the event already observed), else when the handler returns.
	emitted := false
	emit := func() {
		if !emitted && inj.observe != nil {
			emitted = true
			inj.observe(ev)
		}
	}
	defer emit()
	switch kind {
	case "":
		rec := &httpx.StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		ev.Status = rec.Status
	case Status500, Status503, Status429:
		code := map[Kind]int{Status500: http.StatusInternalServerError, Status503: http.StatusServiceUnavailable, Status429: http.StatusTooManyRequests}[kind]
		errCode := map[Kind]string{Status500: httpx.CodeInternal, Status503: httpx.CodeUnavailable, Status429: CodeRateLimited}[kind]
		if kind == Status429 {
			w.Header().Set("Retry-After", strconv.Itoa(inj.cfg.RetryAfter))
		}
		w.Header().Set(httpx.RequestIDHeader, "req_"+httpx.NewID(8))
		httpx.WriteError(w, httpx.Errorf(code, errCode, "injected fault: %s (route %s, request %d)", kind, route, n))
	case Reset:
		reset(w, emit)
	case ResetBody:
		_, _ = io.Copy(io.Discard, r.Body)
		reset(w, emit)
	case Final102:
		w.Header().Set(httpx.RequestIDHeader, "req_"+httpx.NewID(8))
		emit() // WriteFinalStatus closes the connection
		if err := httpx.WriteFinalStatus(w, http.StatusProcessing, ""); err != nil {
			reset(w, nil)
		}
	case Latency:
		if !sleep(r.Context(), inj.cfg.Latency) {
			return
		}
		rec := &httpx.StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		ev.Status = rec.Status
	case ResetAfter, Truncate:
		// A handler that hijacks the connection to answer a raw status
		// (the bg download's final 102) gets a connection that drops the
		// answer and resets: such an answer has no body to truncate.
		dropped := func(c net.Conn) net.Conn {
			return &droppedConn{Conn: c, before: func(status int) { ev.Status = status; emit() }}
		}
		if kind == ResetAfter {
			dw := &discardWriter{controlled: controlled{under: w, wrapConn: dropped}, header: http.Header{}}
			next.ServeHTTP(dw, r)
			if !dw.hijacked {
				ev.Status = dw.status
				reset(w, emit)
			}
			return
		}
		tw := &truncWriter{controlled: controlled{under: w, wrapConn: dropped}, head: r.Method == http.MethodHead}
		next.ServeHTTP(tw, r)
		if !tw.hijacked {
			tw.finish(func(status int) { ev.Status = status; emit() })
		}
	}
}

// sleep waits d or until ctx ends; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// reset hijacks the connection and closes it with an RST (SO_LINGER 0),
// calling before (if set) just before. Where the connection cannot be
// hijacked (HTTP/2) it aborts the handler, which resets the stream.
func reset(w http.ResponseWriter, before func()) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if before != nil {
		before()
	}
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := tcpConn(conn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// closeConn hijacks the connection and closes it normally, after what was
// written was flushed, calling before (if set) just before.
func closeConn(w http.ResponseWriter, before func()) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if before != nil {
		before()
	}
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func tcpConn(c net.Conn) (*net.TCPConn, bool) {
	for range 4 {
		switch x := c.(type) {
		case *net.TCPConn:
			return x, true
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil, false
		}
	}
	return nil, false
}

// controlled is the part of http.ResponseController's interface the
// fault writers pass to the real writer: deadlines and hijacking (a
// handler that answers a raw status itself). Flushing is swallowed, so
// nothing the handler writes reaches the client early.
type controlled struct {
	under    http.ResponseWriter
	hijacked bool
	// wrapConn, if set, wraps the connection a handler hijacks.
	wrapConn func(net.Conn) net.Conn
}

func (c *controlled) SetReadDeadline(t time.Time) error {
	return http.NewResponseController(c.under).SetReadDeadline(t)
}

func (c *controlled) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(c.under).SetWriteDeadline(t)
}

func (c *controlled) EnableFullDuplex() error {
	return http.NewResponseController(c.under).EnableFullDuplex()
}

func (c *controlled) FlushError() error { return nil }

func (c *controlled) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(c.under).Hijack()
	if err != nil {
		return conn, brw, err
	}
	c.hijacked = true
	if c.wrapConn != nil {
		conn = c.wrapConn(conn)
		brw = bufio.NewReadWriter(brw.Reader, bufio.NewWriter(conn))
	}
	return conn, brw, nil
}

// droppedConn is a hijacked connection whose answer is lost: what the
// handler writes is discarded (its status line read for the event), and
// closing it resets it, calling before with that status first.
type droppedConn struct {
	net.Conn
	status int
	before func(status int)
	once   sync.Once
}

func (c *droppedConn) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = statusLine(b)
	}
	return len(b), nil
}

func (c *droppedConn) Close() error {
	c.once.Do(func() { c.before(c.status) })
	if tc, ok := tcpConn(c.Conn); ok {
		_ = tc.SetLinger(0)
	}
	return c.Conn.Close()
}

// statusLine returns the status code of an HTTP/1.x status line at the
// start of b, or 0.
func statusLine(b []byte) int {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1."))
	if !ok || len(rest) < 5 || rest[1] != ' ' {
		return 0
	}
	code, err := strconv.Atoi(string(rest[2:5]))
	if err != nil {
		return 0
	}
	return code
}

// discardWriter runs a handler whose answer is lost: it records the
// status and drops everything.
type discardWriter struct {
	controlled
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) WriteHeader(code int) {
	if d.status == 0 && code >= 200 {
		d.status = code
	}
}

func (d *discardWriter) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return len(b), nil
}

// maxBuffered bounds the body a truncWriter holds when the handler gave no
// Content-Length (the mocks' JSON answers are a few KiB).
const maxBuffered = 8 << 20

// truncWriter sends the handler's answer with only the first half of its
// body. With a Content-Length the answer streams through up to half of
// it; without one the body is buffered (up to maxBuffered), given a
// Content-Length, and half of it sent.
type truncWriter struct {
	controlled
	head        bool
	status      int
	passthrough bool
	remaining   int64
	buf         []byte
	written     int64
}

func (t *truncWriter) Header() http.Header { return t.under.Header() }

func (t *truncWriter) WriteHeader(code int) {
	if code < 200 {
		t.under.WriteHeader(code)
		return
	}
	if t.status != 0 {
		return
	}
	t.status = code
	if cl, err := strconv.ParseInt(t.under.Header().Get("Content-Length"), 10, 64); err == nil && cl > 0 && !t.head {
		t.passthrough, t.remaining = true, cl/2
		t.under.WriteHeader(code)
	}
}

func (t *truncWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.WriteHeader(http.StatusOK)
	}
	t.written += int64(len(b))
	if t.passthrough {
		n := min(int64(len(b)), t.remaining)
		if n > 0 {
			if _, err := t.under.Write(b[:n]); err != nil {
				return 0, err
			}
			t.remaining -= n
		}
		return len(b), nil
	}
	if room := maxBuffered - len(t.buf); room > 0 {
		t.buf = append(t.buf, b[:min(len(b), room)]...)
	}
	return len(b), nil
}

// finish sends what the truncation leaves and closes the connection,
// calling done with the handler's status just before. It is not called
// when the handler hijacked the connection (see droppedConn).
func (t *truncWriter) finish(done func(status int)) {
	status := t.status
	if status == 0 {
		status = http.StatusOK
	}
	before := func() { done(status) }
	switch {
	case t.passthrough:
		closeConn(t.under, before)
	case len(t.buf) == 0:
		reset(t.under, before)
	default:
		h := t.under.Header()
		h.Del("Transfer-Encoding")
		h.Set("Content-Length", strconv.Itoa(len(t.buf)))
		t.under.WriteHeader(status)
		_, _ = t.under.Write(t.buf[:len(t.buf)/2])
		closeConn(t.under, before)
	}
}
