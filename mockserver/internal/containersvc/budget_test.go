package containersvc

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
)

// stripedPNG writes a w×h PNG of colour type ctype at depth bits whose
// rows are vertical stripes (testimage.GiantPNG): a 14000×14000 1-bit one
// makes about 60 KB.
func stripedPNG(t testing.TB, w, h int, depth, ctype byte) []byte {
	t.Helper()
	b, err := testimage.GiantPNG(w, h, depth, ctype, testimage.Stripes)
	require.NoError(t, err)
	return b
}

// TestCostCountsBytesNotPixels: a 1-bit PNG costs what decoding it to
// NRGBA and correcting it hold, not its pixels: beside 30 MB of a 60 MB
// budget in use, a 1-bit 2000×2000 image (4 MP, but about 39 MB: 6.5 MP
// of an ordinary image's memory) waits; it used to start at once.
func TestCostCountsBytesNotPixels(t *testing.T) {
	t.Parallel()
	side, held := 2000, int64(30_000_000)
	if raceEnabled {
		// A quarter of the pixels to correct once released (seconds under
		// the race detector); the same wait and release run. 1000×1000 costs
		// about 23 MB (its fixed part does not shrink) where its pixels cost
		// 6 MB: beside 45 MB held, the 15 MB free hold one and not the other.
		side, held = 1000, 45_000_000
	}
	img := stripedPNG(t, side, side, 1, 0)
	f := newFixture(t, func(c *Config) { c.MemoryBudget, c.Workers = 60_000_000, 4 })
	f.placeInput(t, "onebit.png", img)
	release := holdBudget(t, f, held)
	defer release()

	done := make(chan *httpx.Error, 1)
	go func() {
		_, herr := f.svc.Correct(context.Background(), "onebit.png", nil)
		done <- herr
	}()
	// Queued at the byte cost: at its pixel count it fitted and ran.
	require.Eventually(t, func() bool { return f.svc.queue.Stats().QueuedCost > 60_000_000-held },
		10*time.Second, time.Millisecond, "the 1-bit image waits at its byte cost (queue: %+v)", f.svc.queue.Stats())
	release()
	assert.Nil(t, <-done)
}

// TestOverTheMemoryBudgetIsRefused: an image that would hold more than the
// whole budget is refused as the engine refuses one over its limits (503
// processingPFCErrorMessage) instead of running alone: a 16-bit RGBA PNG
// holds 12 bytes a pixel decoded, twice an ordinary image's cost. The
// message names what sets the budget (Deps.BudgetName) as what to raise.
func TestOverTheMemoryBudgetIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixtureNamed(t, "PFCContainerOptions.MemoryBudget", func(c *Config) { c.MemoryBudget = 24_000_000 })
	var deep []byte // 2.25 MP, about 4.6 MP of memory
	if raceEnabled {
		// The same header with zero rows: the refusal reads only the header
		// (and the file's size, larger here), and striping 18 MB of rows at
		// the best compression takes seconds under the race detector.
		var err error
		deep, err = testimage.GiantPNG(1500, 1500, 16, 6, nil)
		require.NoError(t, err)
	} else {
		deep = stripedPNG(t, 1500, 1500, 16, 6)
	}
	f.placeInput(t, "deep.png", deep)
	_, herr := f.svc.Correct(t.Context(), "deep.png", nil)
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgProcessingPFCError, herr.Code)
	assert.Contains(t, herr.Message, "16-bit PNG would hold about")
	assert.Contains(t, herr.Message, "more than the memory budget of 24 MB; raise PFCContainerOptions.MemoryBudget")
	assert.Equal(t, "error", f.logs.find(t, MsgProcessingPFCError)["level"])
}
