package replicas

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func newURL(u string) (string, error) { return "v:" + u, nil }

func static(t *testing.T, clk poll.Clock, probe func(context.Context, *Replica[string]) error, targets ...Target) *List[string] {
	t.Helper()
	l, err := New(context.Background(), Options[string]{Targets: targets, New: newURL, Probe: probe, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func urls(n int) []Target {
	ts := make([]Target, n)
	for i := range ts {
		ts[i] = Target{URL: fmt.Sprintf("http://r%d:8000", i)}
	}
	return ts
}

func TestPickSpreadsEqualReplicas(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, urls(3)...)
	count := map[int]int{}
	for range 9 {
		count[l.Pick().Index]++
	}
	for i := range 3 {
		if count[i] != 3 {
			t.Fatalf("picks per replica = %v, want 3 each", count)
		}
	}
	if got := l.First().Value; got != "v:http://r0:8000" {
		t.Fatalf("Value = %q", got)
	}
}

func TestPickPrefersFewestInFlight(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, urls(3)...)
	a, b, c := l.Pick(), l.Pick(), l.Pick()
	l.Acquire(a) // a job's later call
	l.Release(b)
	if r := l.Pick(); r != b {
		t.Fatalf("Pick = %d, want the idle replica %d", r.Index, b.Index)
	}
	l.Release(c)
	if r := l.Pick(); r != c {
		t.Fatalf("Pick = %d, want %d", r.Index, c.Index)
	}
}

func TestPickWeighted(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, Target{URL: "http://big", Weight: 4}, Target{URL: "http://small"})
	count := map[string]int{}
	for range 10 {
		count[l.Pick().URL]++
	}
	if count["http://big"] != 8 || count["http://small"] != 2 {
		t.Fatalf("picks = %v, want 8 and 2", count)
	}
}

func TestPickExclude(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, urls(2)...)
	a := l.Pick()
	if r := l.Pick(a); r == a || r == nil {
		t.Fatalf("Pick(exclude a) = %v", r)
	}
	all := l.All()
	if r := l.Pick(all...); r != nil {
		t.Fatalf("Pick(exclude all) = %v, want nil", r)
	}
}

func TestFailuresSetAsideAndProbeReadmits(t *testing.T) {
	t.Parallel()
	clk := poll.NewFakeClock(t0)
	var probeOK atomic.Bool
	var probes atomic.Int32
	l := static(t, clk, func(_ context.Context, r *Replica[string]) error {
		probes.Add(1)
		if probeOK.Load() {
			return nil
		}
		return errors.New("refused")
	}, urls(2)...)
	bad := l.All()[0]
	l.Failed(bad)
	l.Failed(bad)
	l.Succeeded(bad) // a success restarts the count
	l.Failed(bad)
	l.Failed(bad)
	if !l.Healthy(bad) {
		t.Fatal("set aside before Threshold consecutive failures")
	}
	l.Failed(bad)
	if l.Healthy(bad) {
		t.Fatal("not set aside after 3 consecutive failures")
	}
	for range 4 {
		if r := l.Pick(); r == bad {
			t.Fatal("a replica set aside was picked while another is healthy")
		}
	}
	l.bg.Wait()
	if probes.Load() != 0 {
		t.Fatal("probed before its backoff passed")
	}
	clk.Advance(DefaultMinBackoff)
	l.Pick()
	l.bg.Wait()
	if probes.Load() != 1 || l.Healthy(bad) {
		t.Fatalf("probes = %d, healthy = %v; want one failed probe", probes.Load(), l.Healthy(bad))
	}
	// The failed probe doubled the backoff: 1s more is not enough.
	clk.Advance(DefaultMinBackoff)
	l.Pick()
	l.bg.Wait()
	if probes.Load() != 1 {
		t.Fatalf("probes = %d before the doubled backoff passed", probes.Load())
	}
	clk.Advance(DefaultMinBackoff)
	probeOK.Store(true)
	l.Pick()
	l.bg.Wait()
	if probes.Load() != 2 || !l.Healthy(bad) {
		t.Fatalf("probes = %d, healthy = %v; want readmitted", probes.Load(), l.Healthy(bad))
	}
}

func TestBackoffCapped(t *testing.T) {
	t.Parallel()
	clk := poll.NewFakeClock(t0)
	l, err := New(context.Background(), Options[string]{
		Targets: urls(2), New: newURL, Clock: clk, MinBackoff: time.Second, MaxBackoff: 3 * time.Second,
		Probe: func(context.Context, *Replica[string]) error { return errors.New("down") },
	})
	if err != nil {
		t.Fatal(err)
	}
	r := l.All()[1]
	l.SetAside(r)
	for range 5 {
		clk.Advance(time.Hour)
		l.Pick()
		l.bg.Wait()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.backoff != 3*time.Second {
		t.Fatalf("backoff = %v, want the 3s cap", r.backoff)
	}
}

func TestAllSetAsideStillPicks(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, urls(1)...)
	only := l.First()
	l.SetAside(only)
	if r := l.Pick(); r != only {
		t.Fatalf("Pick = %v, want the only replica even when set aside", r)
	}
}

func TestProbeNilReadmitsAfterBackoff(t *testing.T) {
	t.Parallel()
	clk := poll.NewFakeClock(t0)
	l := static(t, clk, nil, urls(2)...)
	r := l.First()
	l.SetAside(r)
	clk.Advance(DefaultMinBackoff)
	l.Pick()
	l.bg.Wait()
	if !l.Healthy(r) {
		t.Fatal("not readmitted")
	}
}

func TestConcurrentPickRelease(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, urls(4)...)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				r := l.Pick()
				l.Failed(r)
				l.Succeeded(r)
				l.Release(r)
			}
		}()
	}
	wg.Wait()
	for _, r := range l.All() {
		if r.inFlight != 0 {
			t.Fatalf("replica %d in flight = %d after all released", r.Index, r.inFlight)
		}
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	cases := map[string]Options[string]{
		"Targets":           {New: newURL},
		"Host":              {Targets: urls(1), Host: "http://x", New: newURL},
		"New":               {Targets: urls(1)},
		"Targets[0].Weight": {Targets: []Target{{URL: "http://a", Weight: -1}}, New: newURL},
	}
	for field, o := range cases {
		_, err := New(context.Background(), o)
		var ve *apierr.ValidationError
		if !errors.As(err, &ve) || ve.Errors[0].Field != field {
			t.Errorf("%s: err = %v, want a ValidationError naming it", field, err)
		}
	}
	_, err := New(context.Background(), Options[string]{Host: "bg:8000", New: newURL})
	var ve *apierr.ValidationError
	if !errors.As(err, &ve) || ve.Errors[0].Field != "Host" {
		t.Errorf("relative Host: err = %v", err)
	}
	boom := errors.New("boom")
	_, err = New(context.Background(), Options[string]{Targets: urls(1), New: func(string) (string, error) { return "", boom }})
	if !errors.Is(err, boom) {
		t.Errorf("New's error = %v, want boom", err)
	}
}

func TestWeightsByURL(t *testing.T) {
	t.Parallel()
	l, err := New(context.Background(), Options[string]{Targets: urls(2), New: newURL, Clock: poll.NewFakeClock(t0),
		Weights: map[string]int{"http://r1:8000": 3}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for range 8 {
		count[l.Pick().Index]++
	}
	if count[1] != 6 || count[0] != 2 {
		t.Fatalf("picks = %v, want 6 and 2", count)
	}
	_, err = New(context.Background(), Options[string]{Targets: urls(1), New: newURL, Weights: map[string]int{"http://r0:8000": 0}})
	var ve *apierr.ValidationError
	if !errors.As(err, &ve) || ve.Errors[0].Field != "Weights" {
		t.Fatalf("weight 0: err = %v", err)
	}
}

// The choice does not overflow where int has 32 bits (run with
// GOARCH=386): with 3,000 calls in flight on a replica of MaxWeight,
// (inFlight+1)*Weight passed 2^31 and the busy replica won new work over
// an idle one of the same weight.
func TestPickNoOverflow(t *testing.T) {
	t.Parallel()
	l := static(t, poll.NewFakeClock(t0), nil, Target{URL: "http://a", Weight: MaxWeight}, Target{URL: "http://b", Weight: MaxWeight})
	a := l.First()
	for range 3000 {
		l.Acquire(a)
	}
	for range 2 {
		if r := l.Pick(); r == a {
			t.Fatal("the replica with 3,000 calls in flight was chosen over an idle one of the same weight")
		}
	}
}
