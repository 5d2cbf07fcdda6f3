package replicas

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// The tests of this file run in a synctest bubble, their replicas on an
// in-memory network (replicatest.Net): a response header timeout passes
// on the bubble's clock as soon as every replica waits, so a hung replica
// costs no real time, and a healthy replica's answer never races it.

// timeoutFleet is fleet over nw with transports that wait 500 ms for an
// answer and do not retry.
func timeoutFleet(t *testing.T, nw *replicatest.Net, urls ...string) *Fleet {
	t.Helper()
	return fleetWith(t, transport.Options{MaxRetries: -1, ResponseHeaderTimeout: 500 * time.Millisecond, HTTPClient: nw.Client()}, urls...)
}

// netServer is newServer on nw.
func netServer(t *testing.T, nw *replicatest.Net, status int) *server {
	s := &server{}
	s.status.Store(int32(status))
	s.URL = nw.Serve(t, s).URL
	return s
}

// holderOf answers 200 about key, 404 about any other, on nw.
func holderOf(t *testing.T, nw *replicatest.Net, key string) string {
	return nw.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/CheckImage/"+key {
			w.WriteHeader(http.StatusNotFound)
		}
	})).URL
}

func check(ctx context.Context, l *Fleet, key string) error {
	resp, _, err := Send(ctx, l, nil, key, &transport.Request{Path: "CheckImage/" + key}, notFoundElsewhere)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

// A key bound to no replica is found on the one holding it behind a
// replica answering 503 or not answering within the response header
// timeout: that answer is passed over, not returned (every call failed
// with it), and the key is bound to the holder.
func TestLocatePassesOverASickReplica(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		busy := netServer(t, nw, http.StatusServiceUnavailable)
		hung, _ := nw.Hung(t)
		for name, sick := range map[string]string{"503": busy.URL, "hang": hung} {
			holder, other := holderOf(t, nw, "job-1"), netServer(t, nw, http.StatusNotFound)
			l := timeoutFleet(t, nw, sick, other.URL, holder)
			if err := check(context.Background(), l, "job-1"); err != nil {
				t.Fatalf("%s: err = %v, want the holder's answer", name, err)
			}
			if r, ok := l.Lookup("job-1"); !ok || r.URL != holder {
				t.Fatalf("%s: the key was not bound to its holder", name)
			}
			// No replica holds it: the sick replica's error, which shows
			// nothing, is returned rather than another's "not here".
			err := check(context.Background(), l, "job-2")
			var ae *apierr.APIError
			switch {
			case name == "503" && (!errors.As(err, &ae) || ae.StatusCode != 503):
				t.Fatalf("503: err = %v, want the sick replica's 503", err)
			case name == "hang" && !errors.Is(err, apierr.ErrResponseHeaderTimeout):
				t.Fatalf("hang: err = %v, want the sick replica's timeout", err)
			}
			if _, ok := l.Lookup("job-2"); ok {
				t.Fatalf("%s: a key no replica showed it holds was bound", name)
			}
		}
	})
}

// The lookup of an unbound key asks the replicas set aside last (it asked
// in discovery order, waiting on a hung replica first every time).
func TestLocateAsksSetAsideReplicasLast(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		hung, n := nw.Hung(t)
		holder := netServer(t, nw, http.StatusOK)
		l := timeoutFleet(t, nw, hung, holder.URL)
		l.SetAside(l.First())
		if err := check(context.Background(), l, "job-1"); err != nil {
			t.Fatal(err)
		}
		if n.Load() != 0 {
			t.Fatalf("the replica set aside was asked %d times before the holder", n.Load())
		}
	})
}

// A replica that accepts connections and never answers is set aside after
// Threshold calls that ran out of the response header timeout, and new
// work then goes to the others (it kept its share).
func TestHeaderTimeoutSetsAside(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		hung, n := nw.Hung(t)
		good := netServer(t, nw, http.StatusOK)
		l := timeoutFleet(t, nw, hung, good.URL)
		h := l.First()
		for range DefaultThreshold {
			_, _, _, err := sendTo(context.Background(), l, h, &transport.Request{Path: "Status"}, transport.SendOptions{}, Policy{})
			if !errors.Is(err, apierr.ErrResponseHeaderTimeout) {
				t.Fatalf("err = %v, want a response header timeout", err)
			}
		}
		if l.Healthy(h) {
			t.Fatal("a replica that never answers was not set aside")
		}
		before := n.Load()
		for range 4 {
			resp, _, err := Send(context.Background(), l, nil, "", &transport.Request{Path: "Status"}, Policy{})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if n.Load() != before {
			t.Fatal("new work went to the hung replica set aside")
		}
	})
}

// A replica that lets a call of Ask (GET /Status, GET /version) run out
// of the response header timeout is set aside at once: the next calls do
// not wait on it (each of the first Threshold calls waited the timeout).
func TestAskSetsAHungReplicaAsideAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		hung, n := nw.Hung(t)
		good := netServer(t, nw, http.StatusOK)
		l := timeoutFleet(t, nw, hung, good.URL)
		for i := range 4 {
			resp, _, err := Send(context.Background(), l, nil, "", &transport.Request{Endpoint: askStatus}, Policy{})
			if err != nil {
				t.Fatalf("call %d: err = %v, want the healthy replica's answer", i, err)
			}
			resp.Body.Close()
		}
		if l.Healthy(l.First()) || n.Load() != 1 {
			t.Fatalf("the hung replica was asked %d times (healthy %t), want once, then set aside", n.Load(), l.Healthy(l.First()))
		}
	})
}

// Ask answers from a replica that works: a replica answering 503, not
// answering, or refusing connections is passed over; with every replica
// sick it returns the first one's error; a pinned call stays on its pin.
func TestAskPassesOverASickReplica(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		busy := netServer(t, nw, http.StatusServiceUnavailable)
		hung, _ := nw.Hung(t)
		for name, sick := range map[string]string{"503": busy.URL, "hang": hung, "dead": nw.Refused()} {
			good := netServer(t, nw, http.StatusOK)
			l := timeoutFleet(t, nw, sick, good.URL)
			for i := range 6 {
				resp, _, err := Send(context.Background(), l, nil, "", &transport.Request{Endpoint: askStatus}, Policy{})
				if err != nil {
					t.Fatalf("%s: call %d: err = %v, want the healthy replica's answer", name, i, err)
				}
				resp.Body.Close()
			}
			if good.n.Load() != 6 {
				t.Fatalf("%s: the healthy replica answered %d of 6 calls", name, good.n.Load())
			}
		}
		l := timeoutFleet(t, nw, busy.URL, busy.URL+"/x")
		_, _, err := Send(context.Background(), l, nil, "", &transport.Request{Endpoint: askStatus}, Policy{})
		var ae *apierr.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 503 {
			t.Fatalf("every replica sick: err = %v, want the 503", err)
		}
		good := netServer(t, nw, http.StatusOK)
		l = timeoutFleet(t, nw, busy.URL, good.URL)
		_, _, err = Send(context.Background(), l, &Flow{Pin: l.First()}, "", &transport.Request{Endpoint: askStatus}, Policy{})
		if !errors.As(err, &ae) || ae.StatusCode != 503 || good.n.Load() != 0 {
			t.Fatalf("pinned: err = %v, healthy replica asked %d times: the call left its pin", err, good.n.Load())
		}
	})
}

// errNotJSON is what jsonCheck returns for an answer that is not JSON.
var errNotJSON = errors.New("not a JSON object")

// jsonCheck is a Policy.Check that takes a body starting with '{'.
func jsonCheck(resp *http.Response) (*http.Response, error) {
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.HasPrefix(b, []byte("{")) {
		return nil, errNotJSON
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// A replica answering 200 with garbage (a proxy's HTML page) to the
// lookup of an unbound key is passed over, its answer counted against
// it, and the key is bound to the replica whose answer passes the
// policy's Check (the garbage replica got the key bound: every later call
// failed on its answer).
func TestLocateChecksTheAnswer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		nw := replicatest.NewNet(t)
		junk := nw.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("<html>"))
		}))
		holder := nw.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/CheckImage/job-1" {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			_, _ = w.Write([]byte(`{"held":true}`))
		}))
		l := timeoutFleet(t, nw, junk.URL, holder.URL)
		p := notFoundElsewhere
		p.Check = jsonCheck
		for range 3 {
			resp, _, err := Send(context.Background(), l, nil, "job-1", &transport.Request{Path: "CheckImage/job-1"}, p)
			if err != nil {
				t.Fatalf("err = %v, want the holder's answer", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != `{"held":true}` {
				t.Fatalf("body = %q, want the holder's", b)
			}
			if r, ok := l.Lookup("job-1"); !ok || r.URL != holder.URL {
				t.Fatal("the key was not bound to its holder")
			}
			l.Unbind("job-1") // a new process: looked up again
		}
		if l.Healthy(l.First()) {
			t.Error("three answers that failed the Check did not set the replica aside")
		}
		// No replica holds it: the Check's error, nothing bound.
		_, _, err := Send(context.Background(), l, nil, "job-2", &transport.Request{Path: "CheckImage/job-2"}, p)
		if !errors.Is(err, errNotJSON) {
			t.Errorf("err = %v, want the Check's error", err)
		}
		if _, ok := l.Lookup("job-2"); ok {
			t.Error("a key no replica showed it holds was bound")
		}
	})
}
