package replicas

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// server counts its requests and answers status.
type server struct {
	URL    string
	n      atomic.Int32
	status atomic.Int32
}

func newServer(t *testing.T, status int) *server {
	s := &server{}
	s.status.Store(int32(status))
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.n.Add(1)
	w.WriteHeader(int(s.status.Load()))
}

// deadURL is a base URL on which connections are refused.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

func fleet(t *testing.T, urls ...string) *Fleet {
	t.Helper()
	return fleetWith(t, transport.Options{MinRetryWait: time.Millisecond, MaxRetryWait: 2 * time.Millisecond}, urls...)
}

// fleetWith is a fleet of urls on a fake clock whose clients take the
// transport options topts, each with its replica's BaseURL.
func fleetWith(t *testing.T, topts transport.Options, urls ...string) *Fleet {
	t.Helper()
	var ts []Target
	for _, u := range urls {
		ts = append(ts, Target{URL: u})
	}
	l, err := New(context.Background(), Options[*transport.Client]{
		Targets: ts, Clock: poll.NewFakeClock(t0),
		New: func(u string) (*transport.Client, error) {
			o := topts
			o.BaseURL = u
			return transport.New(o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// New work that never reached a dead replica moves to a live one at once
// (one attempt on the dead one); a request the live replica answered,
// even 503, is not moved.
func TestSendMovesOnlyWhatNeverLeft(t *testing.T) {
	t.Parallel()
	live := newServer(t, http.StatusOK)
	l := fleet(t, deadURL(t), live.URL)
	for range 4 {
		resp, _, err := Send(context.Background(), l, nil, "", &transport.Request{Endpoint: submitImage}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if live.n.Load() != 4 {
		t.Fatalf("live replica got %d requests, want 4", live.n.Load())
	}

	busy := newServer(t, http.StatusServiceUnavailable)
	l = fleet(t, busy.URL, busy.URL+"/x") // two replicas, both answering 503
	_, _, err := Send(context.Background(), l, nil, "", &transport.Request{Endpoint: submitImage}, Policy{})
	var ae *apierr.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || busy.n.Load() != 1 {
		t.Fatalf("err = %v, requests = %d: a request without Replay answered 503 was sent again", err, busy.n.Load())
	}
}

// Repeated 5xx answers set a replica aside; new work then goes to the
// others.
func TestSendHealth(t *testing.T) {
	t.Parallel()
	bad, good := newServer(t, http.StatusBadGateway), newServer(t, http.StatusOK)
	l := fleet(t, bad.URL, good.URL)
	b := l.First()
	for range DefaultThreshold {
		resp, _, _, err := sendTo(context.Background(), l, b, &transport.Request{Path: "Status"}, transport.SendOptions{}, Policy{})
		if err == nil {
			resp.Body.Close()
		}
	}
	if l.Healthy(b) {
		t.Fatal("a replica answering 502 repeatedly was not set aside")
	}
	before := bad.n.Load()
	for range 4 {
		resp, _, err := Send(context.Background(), l, nil, "", &transport.Request{Path: "Status"}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if bad.n.Load() != before {
		t.Fatal("new work went to the replica set aside")
	}
}

// notFoundElsewhere reads a 404 about a key as "another replica holds it",
// as the container clients' policies do.
var notFoundElsewhere = Policy{Elsewhere: func(err error) bool {
	var ae *apierr.APIError
	return errors.As(err, &ae) && ae.StatusCode == 404
}}

// A call about a key goes to the replica bound to it; an unbound key is
// looked for on each replica (Elsewhere) and then bound.
func TestSendKeyAffinity(t *testing.T) {
	t.Parallel()
	a, b := newServer(t, http.StatusNotFound), newServer(t, http.StatusOK)
	l := fleet(t, a.URL, b.URL)
	p := notFoundElsewhere
	resp, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r, ok := l.Lookup("job-1"); !ok || r.URL != b.URL {
		t.Fatal("the replica holding the key was not bound")
	}
	na := a.n.Load()
	for range 3 {
		resp, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if a.n.Load() != na {
		t.Fatal("a bound key's call went to another replica")
	}
	resp, sent, err := Send(context.Background(), l, &Flow{Pin: l.First()}, "job-1", &transport.Request{Path: "x"}, p)
	if err == nil {
		resp.Body.Close()
	}
	if sent.Replica != l.First() {
		t.Fatal("a pinned call did not go to its pin, or Send did not report it")
	}
}

// An unbound key that the only replica not answering 404 answers 503 is
// not bound to it: the 503 shows nothing about where the key lives, so it
// is returned (not the other replica's 404) and the next call looks
// again, finding the key once that replica recovers.
func TestLocateBindsOnlyAReplicaShownToHoldTheKey(t *testing.T) {
	t.Parallel()
	a, b := newServer(t, http.StatusServiceUnavailable), newServer(t, http.StatusNotFound)
	l := fleet(t, a.URL, b.URL)
	p := notFoundElsewhere
	_, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
	var ae *apierr.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 {
		t.Fatalf("err = %v, want the first replica's 503", err)
	}
	if r, ok := l.Lookup("job-1"); ok {
		t.Fatalf("the key was bound to %s after a 503", r.URL)
	}
	a.status.Store(http.StatusOK)
	resp, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
	if err != nil {
		t.Fatalf("err = %v: the replica holding the key was not found", err)
	}
	resp.Body.Close()
	if r, ok := l.Lookup("job-1"); !ok || r.URL != a.URL {
		t.Fatal("the replica holding the key was not bound")
	}
}

// A host re-resolved to fewer addresses: new work that never reached the
// one live replica is reported, not sent on to a replica no longer live
// (it fell through to none and panicked).
func TestSendAfterAReplicaVanished(t *testing.T) {
	t.Parallel()
	dead := deadURL(t) // http://127.0.0.1:port
	_, port, _ := net.SplitHostPort(dead[len("http://"):])
	clk := poll.NewFakeClock(t0)
	res := &fakeResolver{}
	res.set(nil, "127.0.0.1", "127.0.0.2")
	l, err := New(context.Background(), Options[*transport.Client]{
		Host: "http://bg.studio.svc:" + port, Resolver: hostOnly{res}, Clock: clk,
		New: func(u string) (*transport.Client, error) {
			return transport.New(transport.Options{BaseURL: u, MinRetryWait: time.Millisecond, MaxRetryWait: 2 * time.Millisecond})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res.set(nil, "127.0.0.1")
	clk.Advance(DefaultResolveEvery)
	l.Pick()
	l.bg.Wait()
	if len(l.Live()) != 1 || len(l.All()) != 2 {
		t.Fatalf("live %d of %d, want 1 of 2", len(l.Live()), len(l.All()))
	}
	_, _, err = Send(context.Background(), l, nil, "", &transport.Request{Endpoint: submitImage}, Policy{})
	if !transport.NeverSent(err) {
		t.Fatalf("err = %v, want the refusal", err)
	}
}

// A key no replica is bound to is looked for on the replicas still
// resolved before those whose address vanished (it asked in discovery
// order, so every lookup first waited on the vanished pods' addresses).
func TestLocateAsksLiveReplicasFirst(t *testing.T) {
	t.Parallel()
	liveLn, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip("no 127.0.0.2 loopback address:", err)
	}
	_, port, _ := net.SplitHostPort(liveLn.Addr().String())
	goneLn, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		liveLn.Close()
		t.Skip("port taken on 127.0.0.1:", err)
	}
	serve := func(ln net.Listener, status int, n *atomic.Int32) {
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
		}))
		s.Listener.Close()
		s.Listener = ln
		s.Start()
		t.Cleanup(s.Close)
	}
	var liveN, goneN atomic.Int32
	serve(liveLn, http.StatusOK, &liveN)
	serve(goneLn, http.StatusNotFound, &goneN)
	clk := poll.NewFakeClock(t0)
	res := &fakeResolver{}
	res.set(nil, "127.0.0.1")
	l, err := New(context.Background(), Options[*transport.Client]{
		Host: "http://bg.studio.svc:" + port, Resolver: hostOnly{res}, Clock: clk,
		New: func(u string) (*transport.Client, error) { return transport.New(transport.Options{BaseURL: u}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	res.set(nil, "127.0.0.2")
	clk.Advance(DefaultResolveEvery)
	l.Release(l.Pick()) // starts the re-resolution
	l.bg.Wait()
	p := notFoundElsewhere
	resp, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if goneN.Load() != 0 || liveN.Load() != 1 {
		t.Fatalf("vanished replica asked %d times, live one %d: want 0 and 1", goneN.Load(), liveN.Load())
	}
}

// hostOnly answers any host name with its resolver's addresses.
type hostOnly struct{ r *fakeResolver }

func (h hostOnly) LookupHost(ctx context.Context, _ string) ([]string, error) {
	return h.r.LookupHost(ctx, "bg.studio.svc")
}

// submitImage is a request that creates something per attempt: never
// replayed once it may have reached the server.
var submitImage = &transport.Endpoint{Name: "SubmitImage", Method: http.MethodPost, Route: "/SubmitImage", Move: transport.MoveUnsent}

// askStatus is a call that every replica answers alike: asked of the next
// replica while one fails as the replica's fault.
var askStatus = &transport.Endpoint{Name: "Status", Method: http.MethodGet, Route: "/Status", Replay: true, Move: transport.MoveAny}

// sendTo is one call of Send to rep, with its bookkeeping (begin, end).
func sendTo(ctx context.Context, l *Fleet, rep *Node, r *transport.Request, o transport.SendOptions, p Policy) (*http.Response, transport.Outcome, bool, error) {
	many, o := begin(l, rep, o)
	resp, out, err := rep.Value.Send(ctx, r, o)
	resp, bad, err := end(ctx, l, rep, many, resp, err, p)
	return resp, out, bad, err
}

// A nil Request is the transport's field error, on a fleet too, not a
// panic of the router.
func TestSendNilRequest(t *testing.T) {
	t.Parallel()
	l := fleet(t, deadURL(t), deadURL(t))
	_, _, err := Send(context.Background(), l, nil, "job-1", nil, Policy{})
	if err == nil || !strings.Contains(err.Error(), "Request") {
		t.Fatalf("err = %v, want the transport's error naming Request", err)
	}
}
