package replicas

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/poll"
)

// fakeResolver answers what it was last given.
type fakeResolver struct {
	mu    sync.Mutex
	addrs []string
	err   error
	calls int
}

func (f *fakeResolver) set(err error, addrs ...string) {
	f.mu.Lock()
	f.addrs, f.err = addrs, err
	f.mu.Unlock()
}

func (f *fakeResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if host != "bg.studio.svc" {
		return nil, errors.New("unexpected host " + host)
	}
	return slices.Clone(f.addrs), f.err
}

func hostList(t *testing.T, clk *poll.FakeClock, res *fakeResolver) *List[string] {
	t.Helper()
	l, err := New(context.Background(), Options[string]{
		Host: "http://bg.studio.svc:8000/base", Resolver: res, New: newURL, Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func picked(l *List[string], n int) map[string]int {
	m := map[string]int{}
	for range n {
		r := l.Pick()
		m[r.URL]++
		l.Release(r)
	}
	return m
}

func TestHostResolvesToReplicas(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{}
	res.set(nil, "10.0.0.2", "10.0.0.1", "fd00::3")
	l := hostList(t, poll.NewFakeClock(t0), res)
	var got []string
	for _, r := range l.All() {
		got = append(got, r.URL)
	}
	want := []string{"http://10.0.0.1:8000/base", "http://10.0.0.2:8000/base", "http://[fd00::3]:8000/base"}
	if !slices.Equal(got, want) {
		t.Fatalf("replicas = %v, want %v", got, want)
	}
	if m := picked(l, 6); len(m) != 3 {
		t.Fatalf("picks = %v, want all three used", m)
	}
}

func TestHostReResolvedPeriodically(t *testing.T) {
	t.Parallel()
	clk := poll.NewFakeClock(t0)
	res := &fakeResolver{}
	res.set(nil, "10.0.0.1", "10.0.0.2")
	l := hostList(t, clk, res)
	old := l.ByURL("http://10.0.0.2:8000/base")
	l.Bind("job-on-old", old)

	res.set(nil, "10.0.0.1", "10.0.0.3")
	l.Pick() // not stale yet: no lookup
	l.bg.Wait()
	if res.calls != 1 {
		t.Fatalf("lookups = %d before ResolveEvery passed", res.calls)
	}
	clk.Advance(DefaultResolveEvery)
	l.Pick() // starts the re-resolution in the background
	l.bg.Wait()
	if res.calls != 2 {
		t.Fatalf("lookups = %d, want 2", res.calls)
	}
	m := picked(l, 10)
	if m["http://10.0.0.2:8000/base"] != 0 || m["http://10.0.0.3:8000/base"] == 0 {
		t.Fatalf("picks = %v: the vanished address took work or the new one none", m)
	}
	if r, ok := l.Lookup("job-on-old"); !ok || r != old {
		t.Fatal("a job bound to a vanished replica lost its binding")
	}
	if l.Len() != 2 {
		t.Fatalf("Len = %d, want 2", l.Len())
	}

	// A failed lookup keeps the set; a returning address revives its
	// replica (same value, same index).
	res.set(errors.New("SERVFAIL"))
	clk.Advance(DefaultResolveEvery)
	l.Pick()
	l.bg.Wait()
	if l.Len() != 2 {
		t.Fatalf("Len = %d after a failed lookup, want 2", l.Len())
	}
	res.set(nil, "10.0.0.2")
	clk.Advance(DefaultResolveEvery)
	l.Pick()
	l.bg.Wait()
	if l.Len() != 1 || !l.Healthy(old) || len(l.All()) != 3 {
		t.Fatalf("Len = %d, replicas made = %d: want the old replica revived", l.Len(), len(l.All()))
	}
}

func TestHostResolvingNothing(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{}
	res.set(nil)
	_, err := New(context.Background(), Options[string]{Host: "http://bg.studio.svc:8000", Resolver: res, New: newURL})
	if !errors.Is(err, ErrNoReplicas) {
		t.Fatalf("err = %v, want ErrNoReplicas", err)
	}
	res.set(errors.New("no such host"))
	if _, err := New(context.Background(), Options[string]{Host: "http://bg.studio.svc", Resolver: res, New: newURL}); err == nil {
		t.Fatal("a failed first lookup made a list")
	}
}

func TestBindBounded(t *testing.T) {
	t.Parallel()
	l, err := New(context.Background(), Options[string]{Targets: urls(2), New: newURL, MaxBound: 3, Clock: poll.NewFakeClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	a, b := l.All()[0], l.All()[1]
	for _, k := range []string{"k1", "k2", "k3"} {
		l.Bind(k, a)
	}
	l.Bind("k1", b) // rebinding refreshes k1: k2 is now the oldest
	l.Bind("k4", a)
	if _, ok := l.Lookup("k2"); ok {
		t.Fatal("k2 (the oldest binding) kept beyond MaxBound")
	}
	if r, ok := l.Lookup("k1"); !ok || r != b {
		t.Fatal("the rebound k1 was dropped or kept its old replica")
	}
	l.Unbind("k3")
	if _, ok := l.Lookup("k3"); ok {
		t.Fatal("Unbind kept k3")
	}
	for i := range 5000 {
		l.Bind("x", a)
		l.Bind(string(rune('a'+i%26)), b)
	}
	l.mu.Lock()
	n, o := len(l.bound), len(l.order)-l.head
	l.mu.Unlock()
	if n > 3 || o > 2*3+1024+1 {
		t.Fatalf("map %d, order %d: not bounded", n, o)
	}
}

func TestResolveEveryOption(t *testing.T) {
	t.Parallel()
	clk := poll.NewFakeClock(t0)
	res := &fakeResolver{}
	res.set(nil, "10.0.0.1")
	l, err := New(context.Background(), Options[string]{
		Host: "http://bg.studio.svc", Resolver: res, New: newURL, Clock: clk, ResolveEvery: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.First().URL; got != "http://10.0.0.1" {
		t.Fatalf("URL = %q", got)
	}
	clk.Advance(5 * time.Second)
	l.Pick()
	l.bg.Wait()
	if res.calls != 2 {
		t.Fatalf("lookups = %d, want 2 after ResolveEvery", res.calls)
	}
}

// A host URL written with a trailing slash gives replica URLs without one,
// as static URLs are, so a weight given for an address applies (it was
// keyed "http://10.0.0.1:8000" and the replica "http://10.0.0.1:8000/":
// the weight was silently dropped).
func TestHostTrailingSlashKeepsWeights(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{}
	res.set(nil, "10.0.0.1", "10.0.0.2")
	l, err := New(context.Background(), Options[string]{
		Host: "http://bg.studio.svc:8000/", Resolver: res, New: newURL, Clock: poll.NewFakeClock(t0),
		Weights: map[string]int{"http://10.0.0.1:8000": 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := l.ByURL("http://10.0.0.1:8000")
	if r == nil || r.Weight != 3 {
		t.Fatalf("first replica %q: the weighted address is missing or has not weight 3", l.First().URL)
	}
}
