package mockserver_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Chaos runs: many jobs through the hosted client against a mock that
// fails a fifth of all requests on every route, checked against a
// fault-free run of the same jobs. The processor is a fast deterministic
// stand-in for the engine (the output is a function of the input bytes
// and the options), so the figures measure the SDK and the mock, not
// image processing.

// chaosJobs is the number of jobs of a hosted chaos run: 300 under the
// build tag heavy without the race detector (.ci/run's heavy step), 100
// otherwise (the race detector slows every request about tenfold; a
// plain go test ./... keeps its time for the rest).
func chaosJobs() int {
	if heavyTests && !raceEnabled {
		return 300
	}
	return 100
}

const (
	chaosInFlight = 32
	// chaosFaults is every kind a request can survive by retrying; the
	// truncated answer, which the client retries for JSON answers but not
	// for downloads, has its own run (TestHostedChaosTruncated).
	chaosFaults = "rate=0.2,kinds=500|503|429|reset|reset-body|reset-after|latency,latency=2ms,seed=7"
)

// chaosProcessor writes a digest of the input and the options the job
// was started with, then the input reversed: deterministic, fast, and
// different for every input and option.
var chaosProcessor = hostedmock.ProcessorFunc(func(ctx context.Context, src io.Reader, req hostedmock.JobRequest, dst io.Writer) (*hostedmock.JobResult, error) {
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	fmt.Fprintf(dst, "chaos %x q=%d w=%d\n", sum, req.Quality, req.Resize.Width)
	slices.Reverse(b)
	_, err = dst.Write(b)
	return &hostedmock.JobResult{Format: "jpg", Width: 48, Height: 40}, err
})

// chaosInput is the i-th job's input: a distinct 48×40 JPEG.
func chaosInput(t *testing.T, i int) []byte {
	t.Helper()
	b, err := testimage.Chaos(i)
	require.NoError(t, err)
	return b
}

// chaosInputs are the inputs of n jobs, chaosInput(base+i) for the i-th.
func chaosInputs(t *testing.T, n, base int) [][]byte {
	t.Helper()
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i] = chaosInput(t, base+i)
	}
	return inputs
}

// chaosOptions are the i-th job's options: the quality and a resize vary.
func chaosOptions(i int) *hosted.CorrectionOptions {
	o := hosted.NewCorrection()
	o.OutputQuality = 40 + i%61
	if i%3 == 0 {
		o.Width = 64 + i%50
	}
	return o
}

// chaosTally records what the fault layer did: counts per route and kind,
// and per fileKey the /pfc requests that started a job, with and without
// an answer that reached the client.
type chaosTally struct {
	mu       sync.Mutex
	requests map[string]int            // route → requests
	faults   map[string]map[string]int // route → kind → faults
	started  map[string]int            // fileKey → jobs started whose answer arrived
	lost     map[string]int            // fileKey → jobs started whose answer was lost
	// afterOK counts, per route, the requests whose handler succeeded
	// (2xx) but whose answer the fault layer dropped or cut.
	afterOK map[string]int
}

// chaosSpec parses a fault spec and tallies what it does.
func chaosSpec(t *testing.T, text string) (*mockserver.FaultSpec, *chaosTally) {
	t.Helper()
	spec, err := mockserver.ParseFaults(text)
	require.NoError(t, err)
	tally := &chaosTally{requests: map[string]int{}, faults: map[string]map[string]int{}, started: map[string]int{}, lost: map[string]int{}, afterOK: map[string]int{}}
	spec.Observe = tally.observe
	return spec, tally
}

func (c *chaosTally) observe(e mockserver.FaultEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests[e.Route]++
	if e.Kind != "" {
		if c.faults[e.Route] == nil {
			c.faults[e.Route] = map[string]int{}
		}
		c.faults[e.Route][e.Kind]++
	}
	if e.AfterHandler && e.Status >= 200 && e.Status < 300 {
		c.afterOK[e.Route]++
	}
	if e.Backend == "hosted" && e.Route == "pfc" && e.Status == http.StatusOK {
		key := e.URL.Query().Get("fileKey")
		if e.AfterHandler {
			c.lost[key]++
		} else {
			c.started[key]++
		}
	}
}

// total returns the requests and the faults injected.
func (c *chaosTally) total() (requests, faults int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.requests {
		requests += n
	}
	for _, m := range c.faults {
		for _, n := range m {
			faults += n
		}
	}
	return requests, faults
}

func (c *chaosTally) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var routes []string
	for r := range c.requests {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	var b strings.Builder
	for _, r := range routes {
		fmt.Fprintf(&b, "%s: %d requests, faults %v; ", r, c.requests[r], c.faults[r])
	}
	return b.String()
}

// retryCounter counts the client's "retrying request" log records.
type retryCounter struct{ n atomic.Int64 }

func (r *retryCounter) Enabled(context.Context, slog.Level) bool { return true }
func (r *retryCounter) Handle(_ context.Context, rec slog.Record) error {
	if strings.Contains(rec.Message, "retrying") {
		r.n.Add(1)
	}
	return nil
}
func (r *retryCounter) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *retryCounter) WithGroup(string) slog.Handler      { return r }

// runChaosJobs runs do(i) for every i < n, chaosInFlight at a time, and
// returns the outputs; every call must succeed.
func runChaosJobs(t *testing.T, n int, do func(i int) ([]byte, error)) [][]byte {
	t.Helper()
	out := make([][]byte, n)
	errs := make([]error, n)
	sem := make(chan struct{}, chaosInFlight)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = do(i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "job %d", i)
	}
	return out
}

// chaosClientOptions retry often and fast: at a 20 % fault rate, 11
// attempts all fail with probability 0.2^11 (2e-8 per request).
func chaosClientOptions[O ~func(*config.Config)](retries *retryCounter) []O {
	return []O{
		O(pfc.WithRetries(10, time.Millisecond, 5*time.Millisecond)),
		O(pfc.WithMaxRetryAfter(time.Millisecond)), // the mock's Retry-After is 1 s
		O(pfc.WithLogger(slog.New(retries))),
	}
}

// referenceOutputs runs the jobs on a fault-free mock.
func referenceOutputs(t *testing.T, inputs [][]byte) [][]byte {
	t.Helper()
	ref := hostedmock.Start(t, &hostedmock.Options{Processor: chaosProcessor})
	return runChaosJobs(t, len(inputs), func(i int) ([]byte, error) {
		var buf bytes.Buffer
		_, err := ref.Client.Correct(context.Background(), bytes.NewReader(inputs[i]), int64(len(inputs[i])), chaosOptions(i), &buf, nil)
		return buf.Bytes(), err
	})
}

func TestHostedChaos(t *testing.T) {
	t.Parallel()
	n := chaosJobs()
	inputs := chaosInputs(t, n, 0)
	want := referenceOutputs(t, inputs)

	spec, tally := chaosSpec(t, chaosFaults)
	var retries retryCounter
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: chaosProcessor, Faults: spec}, chaosClientOptions[hosted.Option](&retries)...)
	got := runChaosJobs(t, n, func(i int) ([]byte, error) {
		var buf bytes.Buffer
		job, err := srv.Client.Correct(context.Background(), bytes.NewReader(inputs[i]), int64(len(inputs[i])), chaosOptions(i), &buf, nil)
		if err == nil && job.Status != hosted.StatusCompleted {
			err = fmt.Errorf("job %s is %s", job.ID, job.Status)
		}
		return buf.Bytes(), err
	})
	srv.WaitIdle()

	for i := range n {
		require.Equal(t, want[i], got[i], "job %d: output differs from the fault-free run", i)
	}
	// Each call started exactly one job whose answer it got; the others
	// are the jobs of retried /pfc requests whose answer the fault layer
	// dropped (reset-after), the duplicate the transport documents.
	tally.mu.Lock()
	require.Len(t, tally.started, n, "one fileKey per call")
	duplicates := 0
	for key, k := range tally.started {
		assert.Equal(t, 1, k, "fileKey %s: started twice by the client", key)
		duplicates += tally.lost[key]
	}
	tally.mu.Unlock()
	requests, faults := tally.total()
	assert.InDelta(t, 0.2, float64(faults)/float64(requests), 0.03)
	t.Logf("hosted chaos: %d jobs, %d in flight, %d requests, %d faults injected (%.1f%%), %d client retries, %d duplicate jobs from lost /pfc answers; %s",
		n, chaosInFlight, requests, faults, 100*float64(faults)/float64(requests), retries.n.Load(), duplicates, tally)
}

// TestHostedChaosTruncated: answers cut off after their headers (the
// status and Content-Length arrived, half the body did not). The client's
// transport retries a cut JSON answer (/upload, /pfc, /status) like a
// connection error, so no caller ever sees one; a cut /pfc answer whose
// job was created then starts a second job (the duplicate the transport
// documents, harmless with cache=true). The storage PUT's answer body is
// not read, so cutting it changes nothing. A download is streamed to the
// caller's writer and never retried: a cut file fails the call with
// ErrTruncatedResponse, leaving nothing half-written, and only those
// calls need the caller to retry the whole call, which then completes the
// job with the fault-free output. (Before the transport retried cut
// bodies, this run of 100 jobs needed 17 whole-call retries; now it needs
// exactly one per cut download.)
func TestHostedChaosTruncated(t *testing.T) {
	t.Parallel()
	n := chaosJobs() / 3
	inputs := chaosInputs(t, n, 1000)
	want := referenceOutputs(t, inputs)

	spec, tally := chaosSpec(t, "rate=0.1,kinds=truncate|503|reset,seed=3")
	var retries retryCounter
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: chaosProcessor, Faults: spec}, chaosClientOptions[hosted.Option](&retries)...)
	var callRetries atomic.Int64
	got := runChaosJobs(t, n, func(i int) ([]byte, error) {
		var lastErr error
		for range 10 {
			var buf bytes.Buffer
			_, err := srv.Client.Correct(context.Background(), bytes.NewReader(inputs[i]), int64(len(inputs[i])), chaosOptions(i), &buf, nil)
			if err == nil {
				return buf.Bytes(), nil
			}
			lastErr = err
			callRetries.Add(1)
			// Only a cut download reaches the caller.
			if !errors.Is(err, pfc.ErrTruncatedResponse) || !strings.Contains(err.Error(), "download") {
				return nil, fmt.Errorf("unexpected error kind: %w", err)
			}
		}
		return nil, lastErr
	})
	srv.WaitIdle()
	for i := range n {
		require.Equal(t, want[i], got[i], "job %d", i)
	}
	tally.mu.Lock()
	duplicates := 0
	for key, k := range tally.started {
		assert.LessOrEqual(t, k, 1, "fileKey %s: started twice by the client", key)
		duplicates += tally.lost[key]
	}
	cutJSON := tally.faults["upload"]["truncate"] + tally.faults["pfc"]["truncate"] + tally.faults["status"]["truncate"]
	cutFiles := tally.faults["files"]["truncate"]
	tally.mu.Unlock()
	requests, faults := tally.total()
	assert.Positive(t, cutJSON, "the seed cuts JSON answers")
	assert.Positive(t, cutFiles, "the seed cuts downloads")
	assert.Equal(t, int64(cutFiles), callRetries.Load(), "whole-call retries: one per cut download, none for a cut JSON answer")
	t.Logf("hosted chaos (truncated answers): %d jobs, %d requests, %d faults injected (%d JSON answers and %d downloads cut), %d client retries, %d whole-call retries by the caller, %d duplicate jobs from cut /pfc answers; %s",
		n, requests, faults, cutJSON, cutFiles, retries.n.Load(), callRetries.Load(), duplicates, tally)
}

// TestHostedChaosPresets creates and deletes presets one at a time (so
// the faults are the same on every run) while a third of the preset
// requests fail: with a 503 before the mock sees them, or with their
// answer lost after the mock acted (reset-after). The client retries both.
// A retried create whose first answer was lost meets its own preset: 409
// conflict for the caller, and a preset without a file stays in the
// account (Create is not safely retryable, as package hosted documents;
// the caller cleans up with All and Delete). A retried delete that meets
// a 404 succeeds: its first attempt removed the preset. The figures are
// logged; the invariants are checked: no name twice, every create the
// caller saw succeed is usable, every 409 is explained by a lost answer,
// no delete fails, and every delete's preset is gone.
func TestHostedChaosPresets(t *testing.T) {
	t.Parallel()
	spec, tally := chaosSpec(t, "hosted:rate=0.35,kinds=503|reset-after,routes=presets,seed=4")
	var retries retryCounter
	srv := hostedmock.Start(t, &hostedmock.Options{Faults: spec, Processor: chaosProcessor}, chaosClientOptions[hosted.Option](&retries)...)
	ctx := context.Background()
	file := []byte("preset file")
	var created []*hosted.Preset
	conflicts, deleteNotFound := 0, 0
	for i := range 20 {
		name := fmt.Sprintf("chaos preset %02d", i)
		p, err := srv.Client.Presets.Create(ctx, hosted.CreatePresetRequest{Name: name, FileName: "p.pcp"}, bytes.NewReader(file), int64(len(file)))
		var apiErr *pfc.APIError
		switch {
		case err == nil:
			created = append(created, p)
		case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusConflict:
			conflicts++
		default:
			t.Fatalf("create %s: %v", name, err)
		}
	}
	tally.mu.Lock()
	lostCreates := tally.afterOK["presets"]
	tally.mu.Unlock()
	assert.Equal(t, lostCreates, conflicts, "every 409 follows a create whose answer was lost")

	names, empty := map[string]int{}, 0
	for p, err := range srv.Client.Presets.All(ctx, 100) {
		require.NoError(t, err)
		names[p.Name]++
		if string(p.Extra["status"]) == `"awaiting_upload"` {
			empty++
		}
	}
	assert.Equal(t, conflicts, empty, "each failed create left its preset without a file")
	assert.Len(t, names, 20, "every create reached the mock")
	for name, n := range names {
		assert.Equal(t, 1, n, "%s: created twice", name)
	}
	deletes := len(created)
	tally.mu.Lock()
	lostBefore := tally.afterOK["presets"]
	tally.mu.Unlock()
	for _, p := range created {
		err := srv.Client.Presets.Delete(ctx, p.ID)
		if errors.Is(err, pfc.ErrNotFound) {
			deleteNotFound++
			continue
		}
		require.NoError(t, err)
	}
	tally.mu.Lock()
	lostDeletes := tally.afterOK["presets"] - lostBefore
	tally.mu.Unlock()
	assert.Zero(t, deleteNotFound, "a 404 on a retried delete is success")
	for p, err := range srv.Client.Presets.All(ctx, 100) {
		require.NoError(t, err)
		for _, c := range created {
			assert.NotEqual(t, c.ID, p.ID, "deleted preset %s still listed", c.Name)
		}
	}
	requests, faults := tally.total()
	t.Logf("hosted presets under faults: 20 creates (%d ok, %d answered 409 after a lost answer, leaving a preset without a file), %d deletes (%d answers lost, all retried to success, %d ErrNotFound); %d requests, %d faults, %d client retries; %s",
		len(created), conflicts, deletes, lostDeletes, deleteNotFound, requests, faults, retries.n.Load(), tally)
}
