// Package replicatest starts the misbehaving replicas that the clients'
// replica tests put beside their mocks: one that refuses every request,
// one that never answers, one that answers garbage. Each closes when the
// test ends.
package replicatest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
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
