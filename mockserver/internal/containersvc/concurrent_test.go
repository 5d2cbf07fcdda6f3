package containersvc

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConcurrentUploadsAndCorrections(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	const n = 50
	data := jpegBytes(t, 48, 40)
	urls := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			up, herr := f.svc.Upload(t.Context(), "image/jpeg", bytes.NewReader(data))
			if herr != nil {
				errs[i] = herr
				return
			}
			res, herr := f.svc.Correct(t.Context(), up.ImageKey, nil)
			if herr != nil {
				errs[i] = herr
				return
			}
			urls[i] = res.CorrectedURL
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		assert.False(t, seen[urls[i]], "duplicate %s", urls[i])
		seen[urls[i]] = true
	}
}
