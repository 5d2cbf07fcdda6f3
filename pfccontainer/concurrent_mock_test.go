package pfccontainer_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockConcurrentUploadsAndCorrections: 60 clients upload distinct
// images and correct them with distinct sizes at once; every key and every
// corrected URL is distinct and every download has the size asked for.
func TestMockConcurrentUploadsAndCorrections(t *testing.T) {
	t.Parallel()
	const n = 60
	_, c, _ := start(t, nil)
	type result struct {
		key, url string
		w, h     int
		err      error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[i]
			img := jpegOf(t, 80+i, 60, i)
			if i%2 == 1 {
				img = pngOf(t, 80+i, 60, i)
			}
			if r.key, r.err = c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), ""); r.err != nil {
				return
			}
			corr, err := c.GetCorrection(t.Context(), r.key, pfccontainer.NewCorrection().WithWidth(40+i))
			if r.err = err; err != nil {
				return
			}
			r.url = corr.CorrectedURL
			var out bytes.Buffer
			if _, r.err = c.Download(t.Context(), corr, &out); r.err != nil {
				return
			}
			_, format, err := imageConfig(out.Bytes())
			if r.err = err; err == nil {
				r.w, r.h = format.Width, format.Height
			}
		}()
	}
	wg.Wait()
	keys, urls := map[string]bool{}, map[string]bool{}
	for i, r := range results {
		require.NoError(t, r.err, i)
		assert.False(t, keys[r.key], "duplicate key %s", r.key)
		assert.False(t, urls[r.url], "duplicate URL %s", r.url)
		keys[r.key], urls[r.url] = true, true
		assert.Equal(t, 40+i, r.w, i)
		assert.InDelta(t, float64(40+i)*60/float64(80+i), r.h, 1, i) // rounded either way
	}
	assert.Len(t, keys, n)
}
