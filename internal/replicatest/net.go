package replicatest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// Net is an in-memory network for a test run in a synctest bubble
// (testing/synctest.Test): its connections are net.Pipe pairs, so a
// goroutine waiting on one is durably blocked, and the bubble's fake clock
// moves on only while every client and server waits. A response header
// timeout then passes at once on a replica that never answers, and never
// on one that is still working, however slow the machine or the race
// detector: the tests of hung replicas need neither real waits nor timing
// margins. Make the Net, its servers and the clients using it inside the
// bubble.
type Net struct {
	mu    sync.Mutex
	hosts map[string]*listener // by "host:80"
	next  int
	tr    *http.Transport
}

// NewNet returns an empty network; its client's idle connections close
// when the test ends.
func NewNet(t testing.TB) *Net {
	n := &Net{hosts: map[string]*listener{}}
	n.tr = &http.Transport{DialContext: n.Dial, MaxIdleConnsPerHost: 16}
	t.Cleanup(n.tr.CloseIdleConnections) // registered first: runs after the servers close
	return n
}

// Client returns an HTTP client whose connections are the network's (a
// host nobody listens on refuses them); pass it to pfc.WithHTTPClient.
func (n *Net) Client() *http.Client { return &http.Client{Transport: n.tr} }

// Transport is the network's HTTP transport, for a RoundTripper of the
// test's own in front of it.
func (n *Net) Transport() *http.Transport { return n.tr }

// Listen adds a host to the network and returns its listener (closed when
// the test ends) and base URL, "http://replicaN.test".
func (n *Net) Listen(t testing.TB) (net.Listener, string) {
	n.mu.Lock()
	host := fmt.Sprintf("replica%d.test", n.next)
	n.next++
	l := &listener{conns: make(chan net.Conn), done: make(chan struct{}), addr: pipeAddr(host + ":80")}
	n.hosts[host+":80"] = l
	n.mu.Unlock()
	t.Cleanup(func() { _ = l.Close() })
	return l, "http://" + host
}

// Refused returns the base URL of a host of the network that nobody
// listens on: every connection is refused.
func (n *Net) Refused() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.next++
	return fmt.Sprintf("http://refused%d.test", n.next-1)
}

// Dial connects to the listener of addr ("host:80"), or fails with
// "connection refused" as a TCP dial does.
func (n *Net) Dial(ctx context.Context, _, addr string) (_ net.Conn, err error) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	n.mu.Lock()
	l := n.hosts[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, refused
	}
	c, s := net.Pipe()
	select {
	case l.conns <- s:
		return c, nil
	case <-l.done:
		refused.Addr = l.addr
		err = refused
	case <-ctx.Done():
		err = ctx.Err()
	}
	_, _ = c.Close(), s.Close()
	return nil, err
}

// Server is an HTTP server on the network.
type Server struct {
	// URL is its base URL.
	URL    string
	srv    *http.Server
	served chan struct{} // closed when Serve returns
	conns  sync.WaitGroup
}

// Serve serves h on a new host of the network until the test ends.
func (n *Net) Serve(t testing.TB, h http.Handler) *Server {
	l, _ := n.Listen(t)
	return ServeOn(t, l, h)
}

// ServeOn serves h on l, a listener of Listen, until the test ends: for a
// server that must know its URL before it exists.
func ServeOn(t testing.TB, l net.Listener, h http.Handler) *Server {
	s := &Server{URL: "http://" + strings.TrimSuffix(l.Addr().String(), ":80"), served: make(chan struct{})}
	s.srv = &http.Server{Handler: h, ConnState: func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew: // on Serve's goroutine
			s.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.conns.Done()
		}
	}}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(l)
	}()
	t.Cleanup(s.Kill)
	return s
}

// Kill stops the server as a host that died: new connections are refused
// and the open ones cut; requests it was serving see their contexts end.
// It returns once every connection's goroutine has ended (the server
// lingers on a connection whose request it did not read whole, on the
// bubble's clock), so that none outlives the bubble: never call it from
// one of the server's own handlers.
func (s *Server) Kill() {
	_ = s.srv.Close()
	<-s.served
	s.conns.Wait()
}

// Hung starts a replica on the network that accepts every request and
// never answers it until the test ends; n counts the requests.
func (n *Net) Hung(t testing.TB) (url string, count *atomic.Int32) {
	h, count, release := hungHandler()
	url = n.Serve(t, h).URL
	t.Cleanup(release) // runs before the server's Kill
	return url, count
}

// Sick starts a replica on the network that answers every request with
// status and body, as Sick does.
func (n *Net) Sick(t testing.TB, status int, body string) string {
	return n.Serve(t, sickHandler(status, body)).URL
}

// EverySick is EverySick on the network: a replica answering 503 with
// body, one that never answers and a host that refuses connections.
func (n *Net) EverySick(t testing.TB, body string) (urls []string, hung *atomic.Int32) {
	h, hung := n.Hung(t)
	return []string{n.Sick(t, http.StatusServiceUnavailable, body), h, n.Refused()}, hung
}

// listener is a host's net.Listener: Dial hands it the server's end of a
// pipe.
type listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	addr  pipeAddr
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *listener) Addr() net.Addr { return l.addr }

// pipeAddr is a host's address on the network.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }
