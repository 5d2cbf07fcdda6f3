// Package replicatest starts the misbehaving replicas that the clients'
// replica tests put beside their mocks: one that refuses every request,
// one that never answers, one that answers garbage. Each closes when the
// test ends.
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
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		if body != "" {
			_, _ = w.Write([]byte(body))
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// Hung starts a replica that accepts every request and never answers it
// until the test ends; n counts the requests. It returns its URL.
func Hung(t testing.TB) (url string, n *atomic.Int32) {
	t.Helper()
	release := make(chan struct{})
	n = new(atomic.Int32)
	s := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(release) }) // runs before Close
	return s.URL, n
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
