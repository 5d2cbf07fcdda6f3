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

// TestMovableFlowEndsAtOnceOnADeadReplica: a call of a Movable Flow
// pinned to a replica that is down gets one attempt there, not the
// retries, and moves on; a call of a Flow that cannot move keeps them.
func TestMovableFlowEndsAtOnceOnADeadReplica(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		movable  bool
		attempts int32
	}{
		{"movable", true, 1},
		{"pinned", false, 4},
	} {
		l, dead, counter := countedFleet(t)
		f := &Flow{Pin: dead, Movable: tc.movable}
		_, sent, err := Send(context.Background(), l, f, "", &transport.Request{Path: "pfc"}, Policy{})
		if !transport.NeverSent(err) {
			t.Fatalf("%s: err = %v, want one that never reached the replica", tc.name, err)
		}
		if got := counter.n.Load(); got != tc.attempts || sent.Attempts != int(tc.attempts) {
			t.Errorf("%s: %d attempts on the dead replica (Send says %d), want %d", tc.name, got, sent.Attempts, tc.attempts)
		}
		if f.Pinned() != dead || sent.Replica != dead {
			t.Errorf("%s: the call did not go to the pinned replica", tc.name)
		}
	}
	if (*Flow)(nil).Pinned() != nil {
		t.Error("a nil Flow is pinned")
	}
}
