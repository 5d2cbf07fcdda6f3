package bgsvc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
)

// giantPNG is testimage.GiantPNG.
func giantPNG(t testing.TB, w, h int, depth, ctype byte, row func(y int, b []byte)) []byte {
	t.Helper()
	b, err := testimage.GiantPNG(w, h, depth, ctype, row)
	require.NoError(t, err)
	return b
}

// TestOverTheMemoryBudgetIsInvalidFile: an image whose decoding and
// background removal would hold more than the whole memory budget is
// refused like one over the limits (404 invalid_file), however small its
// file: a 24 KB 1-bit 14000×14000 PNG counted as 196 MP under a 200 MP
// budget and held 2.4 GB for 46 s; a 196 MP RGB PNG peaked at 3.0 GB. The
// message names what sets the budget (Config.BudgetName) as what to
// raise. An ordinary image is still taken under the same budget.
func TestOverTheMemoryBudgetIsInvalidFile(t *testing.T) {
	t.Parallel()
	const side = 14000
	s, _ := newService(t, func(c *settings) { c.MemoryBudget, c.BudgetName = 1_200_000_000, "BGContainerOptions.MemoryBudget" })
	stripes := testimage.Stripes
	if raceEnabled {
		// Zero rows under the race detector: the same header, and the
		// refusal reads no pixel (the file's size, still a few hundred KB,
		// counts for little of 1200 MB); deflating 24 MB of stripes at the
		// best compression took about 5 s there.
		stripes = nil
	}
	for name, data := range map[string][]byte{
		"1-bit grey": giantPNG(t, side, side, 1, 0, stripes),
		"8-bit RGB":  giantPNG(t, side, side, 8, 2, nil),
	} {
		t.Logf("%s: %d bytes", name, len(data))
		_, e := s.Submit(SubmitRequest{File: upload(t, s, data)})
		requireErr(t, e, 404, CodeInvalidFile, ParamFile)
		assert.Contains(t, e.Message, "more than the memory budget of 1200 MB; raise BGContainerOptions.MemoryBudget", name)
	}
	assert.Zero(t, s.queue.Stats().Queued+s.queue.Stats().Processing)

	r := submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{})
	waitIdle(t, s)
	assert.Equal(t, StatusCompleted, check(t, s, r.ProcessID).Status)
}
