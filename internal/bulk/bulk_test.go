package bulk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestRunClientRefusesNaNRate: a RateLimit that is not a number is
// refused, naming the field, as a negative one is (it ran unlimited).
func TestRunClientRefusesNaNRate(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 1)
	w := &copyWork{}
	for _, s := range []Settings{{RateLimit: math.NaN()}, {RateLimit: -1}} {
		_, _, err := RunClient(context.Background(), slices.Values(items), 1, Client[string, Result[string]]{
			Settings: s, Work: func(ctx context.Context, it Item, _ Started) (string, error) { return w.do(ctx, it) },
			Public: func(r Result[string]) Result[string] { return r },
		})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve, "%v", s.RateLimit)
		assert.Equal(t, []string{"RateLimit"}, ve.Fields())
	}
	assert.Zero(t, w.count(items[0].ID))
}

// TestRunClientKinds: a client's Kind classifies first; where it answers
// "", the errors of package pfc every client's calls give are classified
// the same for all three clients, then the runner's DefaultKind.
func TestRunClientKinds(t *testing.T) {
	t.Parallel()
	mine := errors.New("the client's own")
	errs := map[string]error{
		"download_too_large": &pfc.DownloadTooLargeError{Name: "x", Limit: 1},
		"invalid_parameter":  &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "width", Message: "bad"}}},
		"http_503":           fmt.Errorf("wrapped: %w", &pfc.APIError{StatusCode: 503}),
		"mine":               fmt.Errorf("%w: %w", mine, &pfc.APIError{StatusCode: 500}),
		"file":               fs.ErrNotExist,
		"error":              errors.New("other"),
	}
	byID := map[string]error{}
	var items []Item
	for i, it := range makeInputs(t, t.TempDir(), len(errs)) {
		want := slices.Sorted(maps.Keys(errs))[i]
		it.ID = want
		byID[want] = errs[want]
		items = append(items, it)
	}
	rep, _, err := RunClient(context.Background(), slices.Values(items), len(items), Client[string, Result[string]]{
		Work: func(_ context.Context, it Item, _ Started) (string, error) { return "", byID[it.ID] },
		Kind: func(err error) string {
			if errors.Is(err, mine) {
				return "mine"
			}
			return ""
		},
		Public: func(r Result[string]) Result[string] { return r },
	})
	require.NoError(t, err)
	require.Len(t, rep.Failures, len(errs))
	for _, f := range rep.Failures {
		assert.Equal(t, f.Item.ID, f.Kind)
	}
}

// TestRunHugeConcurrency: a Concurrency far above the items (a caller's
// -concurrency 1000000000) starts only the workers the items use, not
// Concurrency goroutines (whose stacks alone would exhaust memory).
func TestRunHugeConcurrency(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 2)
	var most atomic.Int64
	w := &copyWork{before: func(context.Context, Item) error {
		n := int64(runtime.NumGoroutine())
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		return nil
	}}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Concurrency: 20000})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Done)
	assert.Less(t, most.Load(), int64(5000), "goroutines while the items ran")
}

// TestRunConcurrencyBound: never more than Concurrency items in flight,
// and that many are reached (every worker blocks until all are in).
func TestRunConcurrencyBound(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{1, 3, 8} {
		items := makeInputs(t, t.TempDir(), 24)
		var cur, peak atomic.Int32
		full := make(chan struct{})
		var once sync.Once
		w := &copyWork{before: func(ctx context.Context, it Item) error {
			n := cur.Add(1)
			defer cur.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == int32(conc) {
				once.Do(func() { close(full) })
			}
			select { // the first items wait until the pool is full
			case <-full:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		}}
		var progressMax int
		rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{
			Concurrency: conc,
			OnProgress: func(p Progress) {
				progressMax = max(progressMax, p.InFlight)
			},
		})
		require.NoError(t, err)
		assert.Equal(t, 24, rep.Done)
		assert.Equal(t, int32(conc), peak.Load(), "concurrency %d", conc)
		assert.Equal(t, conc, progressMax)
	}
}

// tokenLimiter is a Limiter the test feeds: each Wait takes one token.
type tokenLimiter struct {
	tokens  chan struct{}
	waits   atomic.Int32
	waiting chan struct{} // if set, gets a value as each Wait starts
}

func (l *tokenLimiter) Wait(ctx context.Context) error {
	l.waits.Add(1)
	if l.waiting != nil {
		l.waiting <- struct{}{}
	}
	select {
	case <-l.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestRunRateLimit: an item starts only after the limiter lets it; the
// number started never exceeds the tokens handed out.
func TestRunRateLimit(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 10)
	lim := &tokenLimiter{tokens: make(chan struct{})}
	var started atomic.Int32
	w := &copyWork{before: func(context.Context, Item) error { started.Add(1); return nil }}
	finished := make(chan struct{}, len(items))
	done := make(chan struct{})
	var rep *Report[string]
	var err error
	go func() {
		defer close(done)
		rep, err = Run(context.Background(), slices.Values(items), w.do, Options[string]{
			Concurrency: 4, Limiter: lim,
			OnResult: func(Result[string]) { finished <- struct{}{} },
		})
	}()
	for i := range items {
		lim.tokens <- struct{}{}
		<-finished // the item allowed has finished, and no other started
		assert.Equal(t, int32(i+1), started.Load())
	}
	<-done
	require.NoError(t, err)
	assert.Equal(t, 10, rep.Done)
	assert.Equal(t, int32(10), lim.waits.Load())
}

// TestRunRateLimitCancel: a run waiting on its limiter stops when ctx ends.
func TestRunRateLimitCancel(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 3)
	lim := &tokenLimiter{tokens: make(chan struct{}), waiting: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	w := &copyWork{}
	go func() {
		<-lim.waiting // the run waits for its first token
		cancel()
	}()
	rep, err := Run(ctx, slices.Values(items), w.do, Options[string]{Limiter: lim, Total: 3})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, rep.Done)
	assert.Equal(t, 3, rep.Interrupted)
}

// TestRunRateLimitPastTheDeadline: a rate limit whose next start falls
// after ctx's deadline (rate.Limiter refuses at once, ctx still alive)
// stops the run like the deadline would: the rest is interrupted and the
// error matches context.DeadlineExceeded (it was a partial run with a nil
// error, and the items never pulled were not counted).
func TestRunRateLimitPastTheDeadline(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	w := &copyWork{}
	// One start at once, the next in two hours.
	rep, err := Run(ctx, slices.Values(items), w.do, Options[string]{Limiter: NewLimiter(1.0/7200, 1), Total: 5})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "rate limit")
	assert.NoError(t, ctx.Err())
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, 4, rep.Interrupted)
	assert.Equal(t, 5, rep.Total)
}

// TestRunOutputClash: two items writing one output file would lose one
// result (and a resumed run would skip both): the second fails.
func TestRunOutputClash(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 2)
	items[1].Dst = filepath.Join(filepath.Dir(items[0].Dst), ".", filepath.Base(items[0].Dst))
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	require.Equal(t, 1, rep.Failed)
	f := rep.Failures[0]
	assert.Equal(t, items[1].ID, f.Item.ID)
	assert.Equal(t, "invalid_parameter", f.Kind)
	assert.ErrorContains(t, f.Err, "is also the output of item \""+items[0].ID+"\"")
	assert.Zero(t, w.count(items[1].ID))

	// The same output folder under another name (a symbolic link).
	outDir := filepath.Dir(items[0].Dst)
	link := filepath.Join(t.TempDir(), "outlink")
	if err := os.Symlink(outDir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	items = makeInputs(t, t.TempDir(), 2)
	items[0].Dst = filepath.Join(outDir, "same.jpg")
	items[1].Dst = filepath.Join(link, "same.jpg")
	rep, err = Run(context.Background(), slices.Values(items), w.do, Options[string]{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, 1, rep.Failed)
}

func TestNewLimiter(t *testing.T) {
	t.Parallel()
	assert.Nil(t, NewLimiter(0, 5))
	l := NewLimiter(1000, 0)
	require.NotNil(t, l)
	require.NoError(t, l.Wait(context.Background())) // burst of at least 1

	// The token bucket on explicit times (no clock read): 5 per second
	// with bursts of 2 lets 2 start at once, then one every 200 ms.
	rl, ok := NewLimiter(5, 2).(*rate.Limiter)
	require.True(t, ok)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.True(t, rl.AllowN(t0, 1))
	assert.True(t, rl.AllowN(t0, 1))
	assert.False(t, rl.AllowN(t0, 1))
	assert.False(t, rl.AllowN(t0.Add(199*time.Millisecond), 1))
	assert.True(t, rl.AllowN(t0.Add(200*time.Millisecond), 1))
}

// rejectErr stands for a client's typed error.
type rejectErr struct{ code int }

func (e *rejectErr) Error() string { return "rejected with code " + string(rune('0'+e.code)) }

// TestRunFailuresReported: every failure is in Report.Failures with its
// error value and kind, in the manifest with its message and kind, and a
// rerun retries exactly the failed items.
func TestRunFailuresReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 12)
	man := dir + "/m.jsonl"
	fail := map[string]bool{items[2].ID: true, items[7].ID: true, items[11].ID: true}
	w := &copyWork{before: func(_ context.Context, it Item) error {
		if fail[it.ID] {
			return &rejectErr{code: 3}
		}
		return nil
	}}
	kind := func(err error) string {
		if errors.As(err, new(*rejectErr)) {
			return "rejected"
		}
		return ""
	}
	var results []Result[string]
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{
		Manifest: man, Kind: kind, Concurrency: 3,
		OnResult: func(r Result[string]) { results = append(results, r) },
	})
	require.NoError(t, err)
	assert.Equal(t, 9, rep.Done)
	assert.Equal(t, 3, rep.Failed)
	require.Len(t, rep.Failures, 3)
	assert.Len(t, results, 12)
	for _, f := range rep.Failures {
		var re *rejectErr
		require.ErrorAs(t, f.Err, &re)
		assert.Equal(t, 3, re.code)
		assert.Equal(t, "rejected", f.Kind)
		assert.True(t, fail[f.Item.ID])
		assert.NoFileExists(t, f.Item.Dst)
	}
	recs := readManifest(t, man)
	require.Len(t, recs, 12)
	for _, r := range recs {
		if fail[r.ID] {
			assert.Equal(t, StatusFailed, r.Status)
			assert.Equal(t, "rejected", r.Kind)
			assert.Equal(t, "rejected with code 3", r.Error)
		} else {
			assert.Equal(t, StatusDone, r.Status)
			assert.Empty(t, r.Error)
		}
	}

	// Rerun with the failures fixed: only they are worked on.
	clear(fail)
	w2 := &copyWork{}
	rep2, err := Run(context.Background(), slices.Values(items), w2.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 3, rep2.Done)
	assert.Equal(t, 9, rep2.Skipped)
	for _, it := range items {
		assert.FileExists(t, it.Dst)
	}
	assert.Equal(t, 1, w2.count(items[2].ID))
	assert.Equal(t, 0, w2.count(items[0].ID))
}

// TestRunInvalidItems: bad items are failures naming the field, not a
// stop of the run.
func TestRunInvalidItems(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 2)
	in := append(slices.Clone(items), items[0], Item{Src: "x"}, Item{Dst: "y"})
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(in), w.do, Options[string]{})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Done)
	require.Equal(t, 3, rep.Failed)
	for _, f := range rep.Failures {
		var ve *apierr.ValidationError
		require.ErrorAs(t, f.Err, &ve)
		assert.Equal(t, "invalid_parameter", f.Kind)
	}
	assert.Equal(t, 1, w.count(items[0].ID))
}

func TestRunRejectsBadOptions(t *testing.T) {
	t.Parallel()
	w := &copyWork{}
	_, err := Run(context.Background(), nil, w.do, Options[string]{Concurrency: -1})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"items", "Concurrency"}, ve.Fields())
}

// TestRunProgressETA: the snapshots count items and estimate the time left
// from the run's pace on the injected clock.
func TestRunProgressETA(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 4)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	w := &copyWork{before: func(context.Context, Item) error {
		mu.Lock()
		now = now.Add(10 * time.Second) // each item takes 10 s on the clock
		mu.Unlock()
		return nil
	}}
	var snaps []Progress
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{
		Concurrency: 1, Total: 4, Now: clock,
		OnProgress: func(p Progress) { snaps = append(snaps, p) },
	})
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Done)
	assert.Equal(t, 40*time.Second, rep.Elapsed)
	// start, finish per item.
	require.Len(t, snaps, 8)
	first := snaps[1]
	assert.Equal(t, Progress{Total: 4, Done: 1, Bytes: int64(len("input img0000.jpg")), Elapsed: 10 * time.Second, ETA: 30 * time.Second}, first)
	assert.Equal(t, 1, snaps[2].InFlight)
	last := snaps[7]
	assert.Equal(t, 4, last.Done)
	assert.Equal(t, time.Duration(0), last.ETA)
}

// TestRunCreatesOutputDirs: Dst's directory is made for the work.
func TestRunCreatesOutputDirs(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 1)
	items[0].Dst = items[0].Dst + ".d/deeper/out.jpg"
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	_, err = os.Stat(items[0].Dst)
	assert.NoError(t, err)
}

// TestRunProgressRate: every snapshot carries the client's current rate
// budget, read from Options.Rate as the snapshot is made.
func TestRunProgressRate(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 3)
	var rate atomic.Int64
	rate.Store(40)
	w := &copyWork{before: func(context.Context, Item) error {
		rate.Add(-10) // the service answered 429 meanwhile
		return nil
	}}
	var got []float64
	_, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{
		Concurrency: 1, Rate: func() float64 { return float64(rate.Load()) },
		OnProgress: func(p Progress) { got = append(got, p.Rate) },
	})
	require.NoError(t, err)
	assert.Equal(t, []float64{40, 30, 30, 20, 20, 10}, got)
}
