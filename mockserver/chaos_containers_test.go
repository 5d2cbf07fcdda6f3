package mockserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Chaos runs of the two container clients: the same shape as the hosted
// one (TestHostedChaos) with the mocks' own engines, on small images.
// Every kind of fault is on, truncated answers included. The transport
// retries a cut JSON answer like a connection error, so a call fails only
// where the client does not retry (a cut-off download, a SubmitImage that
// may have reached the container, cut or lost, a final 102 on a
// download): the caller then retries the whole call, as these clients
// document, and every job must end with the fault-free output.

// containerChaosJobs is the number of jobs of a container chaos run: 100
// under the build tag heavy without the race detector (.ci/run's heavy
// step), 30 otherwise (the race detector slows every request about
// tenfold; a plain go test ./... keeps its time for the rest).
func containerChaosJobs() int {
	if heavyTests && !raceEnabled {
		return 100
	}
	return 30
}

// callAttempts bounds a caller's attempts at one whole call.
const callAttempts = 20

// retryCalls runs call until it succeeds, at most callAttempts times,
// counting the failed attempts in failures.
func retryCalls(failures *atomic.Int64, call func() ([]byte, error)) ([]byte, error) {
	var err error
	for range callAttempts {
		var out []byte
		if out, err = call(); err == nil {
			return out, nil
		}
		failures.Add(1)
	}
	return nil, fmt.Errorf("%d attempts failed, the last: %w", callAttempts, err)
}

func TestPFCContainerChaos(t *testing.T) {
	t.Parallel()
	n := containerChaosJobs()
	inputs := chaosInputs(t, n, 2000)
	correct := func(c *pfccontainer.Client, i int) ([]byte, error) {
		ctx := context.Background()
		key, err := c.Upload(ctx, bytes.NewReader(inputs[i]), int64(len(inputs[i])), "image/jpeg")
		if err != nil {
			return nil, err
		}
		corr, err := c.GetCorrection(ctx, key, nil)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		_, err = c.Download(ctx, corr, &buf)
		return buf.Bytes(), err
	}
	ref := pfcmock.Start(t, nil)
	want := runChaosJobs(t, n, func(i int) ([]byte, error) { return correct(ref.Client, i) })

	spec, tally := chaosSpec(t, "container:rate=0.2,latency=2ms,seed=5")
	var retries retryCounter
	srv := pfcmock.Start(t, &pfcmock.Options{Faults: spec}, chaosClientOptions[pfccontainer.Option](&retries)...)
	var callFailures atomic.Int64
	got := runChaosJobs(t, n, func(i int) ([]byte, error) {
		return retryCalls(&callFailures, func() ([]byte, error) { return correct(srv.Client, i) })
	})
	srv.WaitIdle()
	for i := range n {
		require.Equal(t, want[i], got[i], "job %d: output differs from the fault-free run", i)
	}
	requests, faults := tally.total()
	assert.InDelta(t, 0.2, float64(faults)/float64(requests), 0.04)
	t.Logf("container chaos: %d jobs, %d in flight, %d requests, %d faults injected, %d client retries, %d whole-call retries by the caller; %s",
		n, chaosInFlight, requests, faults, retries.n.Load(), callFailures.Load(), tally)
}

// TestBGContainerChaos: the one-call flow (activation, SubmitImage,
// CheckImage polls, DownloadImage, RemoveImage) under every fault,
// including the final 102 on downloads. The client removes its job after
// every failure; the only jobs left on the container are those whose
// SubmitImage answer was lost after the job was created (the client
// cannot know their ids, as it documents), counted exactly.
func TestBGContainerChaos(t *testing.T) {
	t.Parallel()
	n := containerChaosJobs()
	inputs := chaosInputs(t, n, 3000)
	remove := func(c *bgcontainer.Client, i int) ([]byte, *bgcontainer.Result, error) {
		var buf bytes.Buffer
		res, err := c.RemoveBackground(context.Background(), bytes.NewReader(inputs[i]), int64(len(inputs[i])), nil, &buf, nil)
		return buf.Bytes(), res, err
	}
	ref := bgmock.Start(t, nil)
	want := runChaosJobs(t, n, func(i int) ([]byte, error) {
		out, _, err := remove(ref.Client, i)
		return out, err
	})
	ref.WaitIdle()
	require.Zero(t, ref.Mock.JobCount(), "the fault-free run removes every job")

	// Seed 35 draws a final 102 for the 12th and 17th downloads, so the
	// 102 path is taken whatever the number of jobs (every job downloads).
	spec, tally := chaosSpec(t, "bg:rate=0.2,latency=2ms,seed=35")
	var retries retryCounter
	srv := bgmock.Start(t, &bgmock.Options{Faults: spec}, chaosClientOptions[bgcontainer.Option](&retries)...)
	var callFailures, stillProcessing, removedAfterFailure atomic.Int64
	got := runChaosJobs(t, n, func(i int) ([]byte, error) {
		return retryCalls(&callFailures, func() ([]byte, error) {
			out, res, err := remove(srv.Client, i)
			if errors.Is(err, pfc.ErrStillProcessing) {
				stillProcessing.Add(1)
			}
			if err != nil && res != nil && res.Removed != nil && res.RemoveErr == nil {
				removedAfterFailure.Add(1)
			}
			return out, err
		})
	})
	srv.WaitIdle()
	for i := range n {
		require.Equal(t, want[i], got[i], "job %d: output differs from the fault-free run", i)
	}
	tally.mu.Lock()
	lostSubmits := tally.afterOK["submit"]
	tally.mu.Unlock()
	assert.Equal(t, lostSubmits, srv.Mock.JobCount(),
		"every job is removed but those whose SubmitImage answer was lost")
	assert.Positive(t, stillProcessing.Load(), "the final 102 reached the flow")
	assert.Positive(t, removedAfterFailure.Load(), "jobs are removed after a failure")
	requests, faults := tally.total()
	t.Logf("bg chaos: %d jobs, %d in flight, %d requests, %d faults injected, %d client retries, %d whole-call retries by the caller (%d on a final 102, %d failed calls whose job was removed), %d jobs left from lost SubmitImage answers; %s",
		n, chaosInFlight, requests, faults, retries.n.Load(), callFailures.Load(), stillProcessing.Load(), removedAfterFailure.Load(), lostSubmits, tally)
}
