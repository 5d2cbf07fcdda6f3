package containersvc

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// holdBudget occupies n bytes of the memory budget with a job of the
// service's own queue until the returned release is called.
func holdBudget(t *testing.T, f *fixture, n int64) (release func()) {
	t.Helper()
	hold := make(chan struct{})
	started := make(chan struct{})
	_, err := f.svc.queue.Submit(n, func(context.Context) {
		close(started)
		<-hold
	})
	require.NoError(t, err)
	<-started
	var once bool
	return func() {
		if !once {
			once = true
			close(hold)
		}
	}
}

// budgetCost is what a plain correction of data costs in the memory
// budget, in bytes.
func budgetCost(t *testing.T, data []byte) int64 {
	t.Helper()
	hdr, ok, err := imageio.ReadHeader(bytes.NewReader(data))
	require.True(t, ok)
	require.NoError(t, err)
	return hdr.MemoryCost(correctionWork(hdr, engine.Request{}))
}

// queuedSoon waits until n corrections wait in the queue.
func queuedSoon(t *testing.T, f *fixture, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return f.svc.queue.Stats().Queued == n },
		10*time.Second, time.Millisecond, "a correction waits for the budget")
}

// TestCorrectionsWaitForTheMemoryBudget: a correction whose image does not
// fit in what the running ones leave of MemoryBudget waits its turn, then
// runs (-memory-budget reached the correction container too).
func TestCorrectionsWaitForTheMemoryBudget(t *testing.T) {
	t.Parallel()
	img := jpegBytes(t, 64, 48)
	cost := budgetCost(t, img)
	f := newFixture(t, func(c *Config) { c.MemoryBudget, c.Workers = cost, 4 })
	up, herr := f.svc.Upload(t.Context(), "image/jpeg", bytes.NewReader(img))
	require.Nil(t, herr)
	release := holdBudget(t, f, 1) // one byte in use: the image's cost more does not fit
	defer release()

	done := make(chan *httpx.Error, 1)
	go func() {
		_, herr := f.svc.Correct(context.Background(), up.ImageKey, nil)
		done <- herr
	}()
	queuedSoon(t, f, 1)
	release()
	assert.Nil(t, <-done)
	assert.Zero(t, f.svc.queue.Stats().Queued)
}

// TestCorrectionWaitingForTheBudgetEnds: a waiting correction ends with a
// 503 when its request does, or when the service closes, and leaves the
// queue.
func TestCorrectionWaitingForTheBudgetEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		end    func(f *fixture, cancel context.CancelFunc)
		detail string
	}{
		{"request ends", func(_ *fixture, cancel context.CancelFunc) { cancel() }, "the request ended while waiting for the engine"},
		// Close waits for the held job, like any running one: it returns
		// once release is called below.
		{"service closes", func(f *fixture, _ context.CancelFunc) { go f.svc.Close() }, "the server is shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img := jpegBytes(t, 64, 48)
			cost := budgetCost(t, img)
			f := newFixture(t, func(c *Config) { c.MemoryBudget = cost })
			up, herr := f.svc.Upload(t.Context(), "image/jpeg", bytes.NewReader(img))
			require.Nil(t, herr)
			release := holdBudget(t, f, cost)
			defer release()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan *httpx.Error, 1)
			go func() {
				_, herr := f.svc.Correct(ctx, up.ImageKey, nil)
				done <- herr
			}()
			queuedSoon(t, f, 1)
			tc.end(f, cancel)
			herr = <-done
			release()
			require.NotNil(t, herr)
			assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
			assert.Equal(t, tc.detail, herr.Message)
			assert.Zero(t, f.svc.queue.Stats().Queued)
		})
	}
}

// TestOversizeHeaderDoesNotWaitForTheBudget: an image whose header claims
// a size the engine rejects (a 20000×20000 PNG of a few dozen bytes) costs
// nothing in the queue: it was costed at 2.4 GB, more than the whole
// budget, so it waited until nothing ran and held back every correction
// behind it, only for the engine to refuse it from the header. Now it is
// refused with the same answer while another correction runs, and a small
// correction submitted with it does not wait either.
func TestOversizeHeaderDoesNotWaitForTheBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.MemoryBudget, c.Workers = 1_200_000_000, 4 })
	f.placeInput(t, "bogus.png", hugeHeaderPNG(t, 20000, 20000))
	f.placeInput(t, "small.jpg", jpegBytes(t, 64, 48))
	release := holdBudget(t, f, 6_000_000) // an ordinary correction in progress
	defer release()

	type answer struct {
		key  string
		herr *httpx.Error
	}
	done := make(chan answer, 2)
	for _, key := range []string{"bogus.png", "small.jpg"} {
		go func() {
			_, herr := f.svc.Correct(context.Background(), key, nil)
			done <- answer{key, herr}
		}()
	}
	got := map[string]*httpx.Error{}
	for range 2 {
		select {
		case a := <-done:
			got[a.key] = a.herr
		case <-time.After(10 * time.Second):
			t.Fatalf("corrections wait behind the running one (answered: %v, queue: %+v)", got, f.svc.queue.Stats())
		}
	}
	assert.Nil(t, got["small.jpg"])
	herr := got["bogus.png"]
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgProcessingPFCError, herr.Code)
	assert.Contains(t, herr.Message, "20000x20000")
}
