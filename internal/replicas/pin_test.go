package replicas

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// attemptCounter is a transport that counts the attempts sent to one base
// URL and passes every request on.
type attemptCounter struct {
	base string
	n    atomic.Int32
}

func (c *attemptCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if "http://"+r.URL.Host == c.base {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// countedFleet is a fleet of a dead replica and a live one whose clients
// retry 3 times; it returns the dead replica and the counter of its
// attempts.
func countedFleet(t *testing.T) (*Fleet, *Node, *attemptCounter) {
	t.Helper()
	dead := deadURL(t)
	counter := &attemptCounter{base: dead}
	l, err := New(context.Background(), Options[*transport.Client]{
		Targets: []Target{{URL: dead}, {URL: newServer(t, http.StatusOK).URL}}, Clock: poll.NewFakeClock(t0),
		New: func(u string) (*transport.Client, error) {
			return transport.New(transport.Options{BaseURL: u, MaxRetries: 3, MinRetryWait: time.Millisecond,
				MaxRetryWait: 2 * time.Millisecond, HTTPClient: &http.Client{Transport: counter}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range l.Live() {
		if rep.URL == dead {
			return l, rep, counter
		}
	}
	t.Fatal("no dead replica in the fleet")
	return nil, nil, nil
}

// TestPinMovableEndsAtOnceOnADeadReplica: a flow pinned with PinMovable to
// a replica that is down gets one attempt there, not the retries, and
// moves on; a flow pinned with Pin, which cannot move, keeps them.
func TestPinMovableEndsAtOnceOnADeadReplica(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		pin      func(context.Context, *Node) context.Context
		attempts int32
	}{
		{"movable", PinMovable, 1},
		{"pinned", Pin, 4},
	} {
		l, dead, counter := countedFleet(t)
		_, err := Send(tc.pin(context.Background(), dead), l, "", &transport.Request{Path: "pfc"}, Policy{})
		if !transport.NeverSent(err) {
			t.Fatalf("%s: err = %v, want one that never reached the replica", tc.name, err)
		}
		if got := counter.n.Load(); got != tc.attempts {
			t.Errorf("%s: %d attempts on the dead replica, want %d", tc.name, got, tc.attempts)
		}
		if Pinned(tc.pin(context.Background(), dead)) != dead {
			t.Errorf("%s: Pinned does not return the replica", tc.name)
		}
	}
}
