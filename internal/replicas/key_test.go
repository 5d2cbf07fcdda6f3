package replicas

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
)

func TestKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"HTTP://a.test:1":          "http://a.test:1",
		"http://A.TEST:1":          "http://a.test:1",
		"http://a.test:1/.":        "http://a.test:1",
		"http://a.test:1/":         "http://a.test:1",
		"http://a.test:80/x/../":   "http://a.test",
		"https://a.test:443":       "https://a.test",
		"http://a.test:443":        "http://a.test:443",
		"http://a.test:1//v1/./":   "http://a.test:1/v1",
		"https://[::1]:443/a%2Fb/": "https://[::1]/a%2Fb",
		"http://[::1]:8000":        "http://[::1]:8000",
		"bg:8000/":                 "bg:8000",
		// Other spellings of one host, port or path: each made another
		// replica, which took a second share of the work.
		"http://[0:0:0:0:0:0:0:1]:8000": "http://[::1]:8000",
		"http://[::FFFF:10.0.0.7]:8000": "http://10.0.0.7:8000",
		"http://[fe80::1%25eth0]:1":     "http://[fe80::1%25eth0]:1",
		"http://a.test.:1":              "http://a.test:1",
		"http://A.Test.":                "http://a.test",
		"http://a.test:0080":            "http://a.test",
		"http://a.test:01":              "http://a.test:1",
		"http://a.test:1/%78/%7e/":      "http://a.test:1/x/~",
		"http://a.test:1/%2e%2E/v1":     "http://a.test:1/v1",
		"http://a.test:1/a%2fb":         "http://a.test:1/a%2Fb",
		"http://a.test:1/%":             "http://a.test:1/%",
		"%zz/":                          "%zz",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

// Spellings of one URL are one replica (each made another replica, so
// that the same container took several shares of the work), found by any
// spelling, with the weight given to any spelling.
func TestSameReplicaSpelledTwice(t *testing.T) {
	t.Parallel()
	var made []string
	l, err := New(context.Background(), Options[string]{
		Targets: []Target{{URL: "http://a.test:1"}, {URL: "HTTP://a.test:1"}, {URL: "http://A.TEST:1"}, {URL: "http://a.test:1/."}, {URL: "http://b.test:1"}},
		Weights: map[string]int{"http://B.test:1/": 3},
		New:     func(u string) (string, error) { made = append(made, u); return u, nil },
		Clock:   poll.NewFakeClock(t0),
	})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 2 || len(made) != 2 {
		t.Fatalf("%d replicas made of %v, want 2", l.Len(), made)
	}
	if r := l.ByURL("http://A.test:1/"); r == nil || r.URL != "http://a.test:1" {
		t.Fatalf("ByURL of another spelling = %v", r)
	}
	if r := l.ByURL("http://b.test:1"); r == nil || r.Weight != 3 {
		t.Fatalf("the weight given to another spelling was not applied: %v", r)
	}
}

// A weight large enough to overflow the choice's arithmetic is refused
// (it was accepted, and a replica of weight MaxInt with calls in flight
// lost new work to one of weight 1 that had one).
func TestWeightBounded(t *testing.T) {
	t.Parallel()
	for field, o := range map[string]Options[string]{
		"Targets[0].Weight": {Targets: []Target{{URL: "http://a", Weight: math.MaxInt}}, New: newURL},
		"Weights":           {Targets: urls(1), Weights: map[string]int{"http://r0:8000": MaxWeight + 1}, New: newURL},
	} {
		_, err := New(context.Background(), o)
		var ve *apierr.ValidationError
		if !errors.As(err, &ve) || ve.Errors[0].Field != field {
			t.Errorf("%s: err = %v, want a ValidationError naming it", field, err)
		}
	}
	_, err := New(context.Background(), Options[string]{Targets: urls(1), New: newURL,
		Weights: map[string]int{"http://r0:8000": 2, "HTTP://r0:8000": 3}})
	var ve *apierr.ValidationError
	if !errors.As(err, &ve) || ve.Errors[0].Field != "Weights" {
		t.Errorf("two weights for one replica: err = %v", err)
	}
	l := static(t, poll.NewFakeClock(t0), nil, Target{URL: "http://a", Weight: MaxWeight}, Target{URL: "http://b"})
	b := l.Pick(l.First()) // one call in flight on b
	for range 3 {
		if r := l.Pick(); r == b {
			t.Fatal("the replica of weight 1 with a call in flight was chosen over the one of MaxWeight")
		}
	}
}
