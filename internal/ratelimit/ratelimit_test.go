package ratelimit

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/fakeclock"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fakeBudget(t *testing.T, perSecond float64, burst int) (*Budget, *fakeclock.Clock) {
	t.Helper()
	clk := fakeclock.New(t0)
	b, err := NewClock(perSecond, burst, clk.Now, func(d time.Duration, f func()) func() bool {
		return clk.AfterFunc(d, f).Stop
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, clk
}

// admitted is one Wait's outcome: when it returned, on the fake clock.
type admitted struct {
	at  time.Time
	tk  Ticket
	err error
}

// waitAsync runs b.Wait on its own goroutine and returns its outcome.
func waitAsync(ctx context.Context, b *Budget, clk *fakeclock.Clock) <-chan admitted {
	ch := make(chan admitted, 1)
	go func() {
		tk, err := b.Wait(ctx)
		ch <- admitted{clk.Now(), tk, err}
	}()
	return ch
}

// admit returns the outcome of the waiter on ch, running the clock's
// timers as they come: the waiter must be the only one with timers.
func admit(t *testing.T, clk *fakeclock.Clock, ch <-chan admitted) admitted {
	t.Helper()
	for {
		changed := clk.Changed()
		if clk.Pending() > 0 {
			clk.AdvanceToNext()
			continue
		}
		select {
		case a := <-ch:
			return a
		case <-changed:
		}
	}
}

// mustBlock fails unless nothing arrived on ch: the clock has not run any
// timer since the waiter blocked, so a waiter that is still blocked stays so.
func mustBlock(t *testing.T, ch <-chan admitted, what string) {
	t.Helper()
	select {
	case a := <-ch:
		t.Fatalf("%s: admitted at %v, want still waiting", what, a.at.Sub(t0))
	default:
	}
}

func TestNewRefusesBadRates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate  float64
		burst int
	}{{0, 1}, {-1, 1}, {1, -1}, {1, MaxBurst + 1}, {math.NaN(), 1}, {math.Inf(1), 1}} {
		if _, err := New(tc.rate, tc.burst); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%v, %d) = %v, want ErrInvalid", tc.rate, tc.burst, err)
		}
	}
}

// TestTinyRateAndHugeBurst: a rate far below one request an hour spaces
// them an hour apart (the interval does not overflow), and the largest
// burst, emptied by a 429 at such a rate, does not overflow either.
func TestTinyRateAndHugeBurst(t *testing.T) {
	t.Parallel()
	b, clk := fakeBudget(t, 1e-300, 1)
	ctx := context.Background()
	if _, err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	ch := waitAsync(ctx, b, clk)
	if err := clk.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if next, _ := clk.NextDeadline(); next.Sub(t0) != time.Hour {
		t.Fatalf("next slot in %v, want 1h", next.Sub(t0))
	}
	clk.Advance(time.Hour)
	if a := <-ch; a.err != nil {
		t.Fatal(a.err)
	}

	b, _ = fakeBudget(t, 1e-300, MaxBurst)
	b.Done(Ticket{b.gen}, http.StatusTooManyRequests, 0, false)
	if d := b.tat.Sub(t0); d < (MaxBurst-1)*time.Hour {
		t.Fatalf("after a 429 the bucket refills in %v, want %v (no overflow)", d, (MaxBurst-1)*time.Hour)
	}
}

// TestWaitSpacesRequests: at 10 requests per second with a burst of 2,
// two requests go at once, then one every 100 ms.
func TestWaitSpacesRequests(t *testing.T) {
	t.Parallel()
	b, clk := fakeBudget(t, 10, 2)
	ctx := context.Background()
	var got []time.Duration
	for range 5 {
		got = append(got, admit(t, clk, waitAsync(ctx, b, clk)).at.Sub(t0))
	}
	want := []time.Duration{0, 0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("admitted at %v, want %v", got, want)
		}
	}
}

// TestDoneAIMD: a 429 halves the rate once per generation, other answers
// raise it by a hundredth of the limit up to it, server errors do not,
// and the rate never falls under a 32nd of the limit.
func TestDoneAIMD(t *testing.T) {
	t.Parallel()
	b, _ := fakeBudget(t, 100, 1000)
	ctx := context.Background()
	tk1, _ := b.Wait(ctx)
	tk2, _ := b.Wait(ctx)
	b.Done(tk1, http.StatusTooManyRequests, 0, false)
	if got := b.Rate(); got != 50 {
		t.Fatalf("after a 429: rate %v, want 50", got)
	}
	b.Done(tk2, http.StatusTooManyRequests, 0, false) // sent before the cut
	if got := b.Rate(); got != 50 {
		t.Fatalf("after a second 429 of the same burst: rate %v, want 50 (one cut)", got)
	}
	b.Done(tk1, http.StatusOK, 0, false) // sent before the cut
	if got := b.Rate(); got != 50 {
		t.Fatalf("an answer to a request sent before the cut raised the rate to %v", got)
	}
	tk3, _ := b.Wait(ctx)
	b.Done(tk3, http.StatusServiceUnavailable, 0, false)
	if got := b.Rate(); got != 50 {
		t.Fatalf("a 503 changed the rate to %v", got)
	}
	for range 3 {
		b.Done(tk3, http.StatusOK, 0, false)
	}
	b.Done(tk3, http.StatusNotFound, 0, false)
	if got := b.Rate(); got != 54 {
		t.Fatalf("after 4 answers: rate %v, want 54", got)
	}
	for range 100 {
		b.Done(tk3, http.StatusOK, 0, false)
	}
	if got := b.Rate(); got != 100 {
		t.Fatalf("rate %v, want the limit, 100", got)
	}
	for range 10 {
		b.Done(Ticket{b.gen}, http.StatusTooManyRequests, 0, false) // each sent after the cut before
	}
	if got := b.Rate(); got != 100.0/32 {
		t.Fatalf("after 10 cuts: rate %v, want the floor %v", got, 100.0/32)
	}
}

// TestRetryAfterHoldsEveryWaiter: a 429's Retry-After holds back the
// requests that wait already (one that had a slot before it ends) and
// those that come later, until it has passed; then they go one by one at
// the halved rate.
func TestRetryAfterHoldsEveryWaiter(t *testing.T) {
	t.Parallel()
	b, clk := fakeBudget(t, 10, 1)
	ctx := context.Background()
	tk, _ := b.Wait(ctx) // at t0; the next slot is t0+100ms
	early := waitAsync(ctx, b, clk)
	if err := clk.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b.Done(tk, http.StatusTooManyRequests, 2*time.Second, true)
	late := []<-chan admitted{waitAsync(ctx, b, clk), waitAsync(ctx, b, clk)}
	if err := clk.BlockUntilContext(ctx, 3); err != nil {
		t.Fatal(err)
	}
	clk.Advance(100 * time.Millisecond) // the early waiter's old slot
	if err := clk.BlockUntilContext(ctx, 3); err != nil {
		t.Fatal(err) // it took a new slot after the hold
	}
	clk.Advance(1900*time.Millisecond - time.Nanosecond)
	mustBlock(t, early, "the waiter whose slot fell in the hold")
	for _, ch := range late {
		mustBlock(t, ch, "a waiter that came during the hold")
	}
	// Then one by one from the end of the hold, 200 ms apart (5 per
	// second): the clock moves to each slot only once the one before was
	// taken, so each waiter reads its own slot's time.
	all := append(late, early)
	for i, want := range []time.Duration{2 * time.Second, 2200 * time.Millisecond, 2400 * time.Millisecond} {
		clk.AdvanceTo(t0.Add(want))
		var a admitted
		select {
		case a = <-all[0]:
		case a = <-all[1]:
		case a = <-all[2]:
		}
		if a.err != nil || a.at.Sub(t0) != want {
			t.Fatalf("request %d: admitted at %v (%v), want %v", i, a.at.Sub(t0), a.err, want)
		}
	}
}

// TestWaitCancelled: a waiter whose context ends returns its error at
// once, without the clock moving, and gives its slot back.
func TestWaitCancelled(t *testing.T) {
	t.Parallel()
	b, clk := fakeBudget(t, 1, 1)
	bg := context.Background()
	if _, err := b.Wait(bg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	ch := waitAsync(ctx, b, clk)
	if err := clk.BlockUntilContext(bg, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	a := <-ch
	if !errors.Is(a.err, context.Canceled) || !a.at.Equal(t0) {
		t.Fatalf("Wait = %v at %v, want context.Canceled at once", a.err, a.at.Sub(t0))
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers left behind", n)
	}
	if a := admit(t, clk, waitAsync(bg, b, clk)); !a.at.Equal(t0.Add(time.Second)) {
		t.Fatalf("the next request went at %v, want 1s (the slot given back)", a.at.Sub(t0))
	}
	if _, err := b.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a cancelled context = %v", err)
	}
}
