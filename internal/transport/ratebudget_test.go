package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fakeclock"
	"github.com/pfcsdk/pfc-go/internal/ratelimit"
	"github.com/pfcsdk/pfc-go/pfc"
)

// budgetClient is a Client with a rate budget of perSecond on a fake
// clock, over a RoundTripper that answers the first request 429 with
// Retry-After: 5 and every other one 200, counting them; no retries.
func budgetClient(t *testing.T, perSecond float64) (*Client, *fakeclock.Clock, *atomic.Int64) {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b, err := ratelimit.NewClock(perSecond, 10, clk.Now, func(d time.Duration, f func()) func() bool {
		return clk.AfterFunc(d, f).Stop
	})
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		status, h := http.StatusOK, http.Header{}
		if sent.Add(1) == 1 {
			status = http.StatusTooManyRequests
			h.Set("Retry-After", "5")
		}
		return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: h,
			Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	c := newClient(t, Options{BaseURL: "https://api.test/v2", MaxRetries: -1, RateBudget: b,
		HTTPClient: &http.Client{Transport: rt}})
	return c, clk, &sent
}

// blockUntil waits until n budget timers are pending: n calls wait for
// the budget. The bound only ends a test that fails (no call waits).
func blockUntil(clk *fakeclock.Clock, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := clk.BlockUntilContext(ctx, n); err != nil {
		return fmt.Errorf("%d calls waiting for the rate budget, want %d: %w", clk.Pending(), n, err)
	}
	return nil
}

// TestRateBudgetRetryAfterHoldsTheClient: a 429's Retry-After holds back
// every later request of the client, on other goroutines, until it has
// passed on the budget's clock, and halves the client's rate.
func TestRateBudgetRetryAfterHoldsTheClient(t *testing.T) {
	t.Parallel()
	c, clk, sent := budgetClient(t, 100)
	ctx := context.Background()
	var ae *apierr.APIError
	if err := c.DoJSON(ctx, &Request{Path: "status/a"}, nil); !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first call: %v, want a 429", err)
	}
	if got := c.Rate(); got != 50 {
		t.Fatalf("Rate after a 429 = %v, want 50", got)
	}
	done := make(chan error, 3)
	for range 3 {
		go func() { done <- c.DoJSON(ctx, &Request{Path: "status/b"}, nil) }()
	}
	if err := blockUntil(clk, 3); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5*time.Second - time.Nanosecond)
	select {
	case err := <-done:
		t.Fatalf("a call returned during the Retry-After: %v", err)
	default:
	}
	if n := sent.Load(); n != 1 {
		t.Fatalf("%d requests sent during the Retry-After, want only the first", n)
	}
	for n := 0; n < 3; {
		changed := clk.Changed()
		if clk.Pending() > 0 {
			clk.AdvanceToNext()
			continue
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			n++
		case <-changed:
		}
	}
	if n := sent.Load(); n != 4 {
		t.Fatalf("%d requests sent, want 4", n)
	}
}

// TestRateBudgetWaitCancelled: a call waiting for the budget ends at once
// with the context's error when its context is cancelled, sends nothing
// and is not retried.
func TestRateBudgetWaitCancelled(t *testing.T) {
	t.Parallel()
	c, clk, sent := budgetClient(t, 100)
	bg := context.Background()
	_ = c.DoJSON(bg, &Request{Path: "status/a"}, nil) // 429: held for 5 s
	c.maxRetries = 3                                  // a retry would be due, if anything
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- c.DoJSON(ctx, &Request{Path: "status/b"}, nil) }()
	if err := blockUntil(clk, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("DoJSON = %v, want context.Canceled", err)
	}
	if n := sent.Load(); n != 1 {
		t.Fatalf("%d requests sent, want 1", n)
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d budget timers left behind", n)
	}
}

// TestRateBudgetSparesExternalRequests: pre-signed URLs (DoExternal) do
// not wait for the budget, even during a hold, on another host or (the
// hosted mock serves them itself) on the API's; with BudgetExternal those
// on the API's origin do (a container's own files), others still not.
func TestRateBudgetSparesExternalRequests(t *testing.T) {
	t.Parallel()
	for _, budgetExternal := range []bool{false, true} {
		c, clk, sent := budgetClient(t, 100)
		c.budgetExternal = budgetExternal
		ctx := context.Background()
		_ = c.DoJSON(ctx, &Request{Path: "status/a"}, nil) // 429: held for 5 s
		for _, u := range []string{"https://storage.test/files/x?sig=abc", "https://api.test/files/y?sig=abc"} {
			changed := clk.Changed() // closed when a request waits for the budget
			done := make(chan error, 1)
			go func() {
				resp, err := c.DoExternal(ctx, http.MethodGet, u, nil, Body{})
				if err == nil {
					drainAndClose(resp.Body)
				}
				done <- err
			}()
			if budgetExternal && u == "https://api.test/files/y?sig=abc" {
				if err := blockUntil(clk, 1); err != nil {
					t.Fatal(err)
				}
				if n := sent.Load(); n != 2 {
					t.Fatalf("BudgetExternal: %d requests sent during the hold, want 2", n)
				}
				clk.Advance(5 * time.Second)
			} else {
				select {
				case err := <-done:
					done <- err
				case <-changed:
					t.Fatalf("BudgetExternal %v: %s waited for the budget", budgetExternal, u)
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		if n := sent.Load(); n != 3 {
			t.Fatalf("BudgetExternal %v: %d requests sent, want 3", budgetExternal, n)
		}
	}
}

// TestRateBudgetCutLogged: a cut is logged at Warn with the new rate and
// the hold, and the redacted URL like every record.
func TestRateBudgetCutLogged(t *testing.T) {
	t.Parallel()
	c, _, _ := budgetClient(t, 100)
	rec := &logRecorder{}
	c.logger = slogLogger(rec)
	_ = c.DoJSON(context.Background(), &Request{Path: "status/a"}, nil)
	got := rec.find("pfc: rate budget cut after a 429")
	if len(got) != 1 || got[0]["level"].String() != "WARN" || got[0]["rate"].Float64() != 50 ||
		got[0]["hold"].Duration() != 5*time.Second || got[0]["url"].String() != "https://api.test/v2/status/a" {
		t.Fatalf("records %v", got)
	}
}

// TestRateBudgetOneCutPerBurst: five requests in flight at once all
// answered 429 halve the client's rate once, not five times.
func TestRateBudgetOneCutPerBurst(t *testing.T) {
	t.Parallel()
	b, err := ratelimit.New(100, 10)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	var arrived sync.WaitGroup
	arrived.Add(n)
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		arrived.Done()
		arrived.Wait() // every request is sent before any is answered
		return &http.Response{StatusCode: http.StatusTooManyRequests, Status: "429", Header: http.Header{},
			Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	c := newClient(t, Options{BaseURL: "https://api.test/v2", MaxRetries: -1, RateBudget: b,
		HTTPClient: &http.Client{Transport: rt}})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { _ = c.DoJSON(context.Background(), &Request{Path: "status/a"}, nil) })
	}
	wg.Wait()
	if got := c.Rate(); got != 50 {
		t.Fatalf("Rate after %d 429s of one burst = %v, want 50", n, got)
	}
}

// startCounter is an Observer counting StartAttempt calls.
type startCounter struct {
	pfc.NopObserver
	n atomic.Int64
}

func (s *startCounter) StartAttempt(ctx context.Context, _ *pfc.Attempt) context.Context {
	s.n.Add(1)
	return ctx
}

// TestRateBudgetWaitBeforeTheAttempt: the wait for the budget comes
// before the attempt the observer sees (its span and
// http.client.request.duration measure the request, not the client's own
// queue): a call held by a Retry-After has not started its attempt.
func TestRateBudgetWaitBeforeTheAttempt(t *testing.T) {
	t.Parallel()
	c, clk, sent := budgetClient(t, 100)
	obs := &startCounter{}
	c.obs = obs
	bg := context.Background()
	_ = c.DoJSON(bg, &Request{Path: "status/a"}, nil) // 429: held for 5 s
	done := make(chan error, 1)
	go func() { done <- c.DoJSON(bg, &Request{Path: "status/b"}, nil) }()
	if err := blockUntil(clk, 1); err != nil {
		t.Fatal(err)
	}
	if n := obs.n.Load(); n != 1 {
		t.Fatalf("%d attempts started while the second call waits for the budget, want 1", n)
	}
	clk.Advance(5 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, s := obs.n.Load(), sent.Load(); n != 2 || s != 2 {
		t.Fatalf("%d attempts started, %d sent, want 2 and 2", n, s)
	}
}
