// Package replicatest starts the misbehaving replicas that the clients'
// replica tests put beside their mocks: one that refuses every request,
// one that never answers, one that answers garbage. Each closes when the
// test ends. They listen on loopback, or on Net, an in-memory network for
// tests run in a synctest bubble, where a hung replica's response header
// timeout passes on the bubble's fake clock: at once, and never while a
// healthy replica is still working.
package replicatest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Sick starts a replica that answers every request with status and, when
// body is not empty, body as application/json. It returns its URL.
func Sick(t testing.TB, status int, body string) string {
	t.Helper()
	s := httptest.NewServer(sickHandler(status, body))
	t.Cleanup(s.Close)
	return s.URL
}

// sickHandler answers every request with status and, when body is not
// empty, body as application/json.
func sickHandler(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		if body != "" {
			_, _ = w.Write([]byte(body))
		}
	})
}

// Hung starts a replica that accepts every request and never answers it
// until the test ends; n counts the requests. It returns its URL.
func Hung(t testing.TB) (url string, n *atomic.Int32) {
	t.Helper()
	h, n, release := hungHandler()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	t.Cleanup(release) // runs before Close
	return s.URL, n
}

// hungHandler holds every request, unanswered, until release or the end of
// the request's context; n counts the requests.
func hungHandler() (h http.Handler, n *atomic.Int32, release func()) {
	done := make(chan struct{})
	n = new(atomic.Int32)
	return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}), n, func() { close(done) }
}

// Junk starts a replica that answers every request 200 with an HTML page
// (a proxy's). It returns its URL.
func Junk(t testing.TB) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>"))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// Refused returns the URL of a port nothing listens on.
func Refused(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return u
}

// EverySick starts the three kinds of sick replica: one answering 503
// (Sick, with body), one that never answers (Hung) and a port nothing
// listens on (Refused). It returns their URLs in that order and the hung
// replica's request count.
func EverySick(t testing.TB, body string) (urls []string, hung *atomic.Int32) {
	t.Helper()
	h, hung := Hung(t)
	return []string{Sick(t, http.StatusServiceUnavailable, body), h, Refused(t)}, hung
}

// HeaderTimeout is the response header timeout of SickClientOptions: a
// hung replica costs a call that much.
const HeaderTimeout = 300 * time.Millisecond

// SickClientOptions are the options of a client of urls (sick replicas):
// no retries and a response header timeout of HeaderTimeout.
func SickClientOptions[O ~func(*config.Config)](urls ...string) []O {
	return []O{O(pfc.WithReplicas(urls...)), O(pfc.WithRetries(-1, 0, 0)), O(pfc.WithResponseHeaderTimeout(HeaderTimeout))}
}

// HangGuard returns a context that ends 30 s into the test: a guard
// against a call that hangs, not a speed goal.
func HangGuard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
