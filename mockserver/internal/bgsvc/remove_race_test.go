package bgsvc

import (
	"bytes"
	"image/png"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentRemoveWhileDownloading: a client removing a job (twice,
// at once) while another still streams its PNG: exactly one removal
// answers 200, the others 404, the stream already open completes with the
// whole PNG, and no file is left in the data directory afterwards.
func TestConcurrentRemoveWhileDownloading(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	r := submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{})
	waitIdle(t, s)
	require.Equal(t, StatusCompleted, check(t, s, r.ProcessID).Status)

	d, e := s.Download(r.ProcessID)
	require.Nil(t, e)
	first := make([]byte, 8)
	_, err := io.ReadFull(d.File, first) // the download has begun

	const removers = 8
	var wg sync.WaitGroup
	codes := make([]int, removers)
	for i := range removers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, e := s.Remove(r.ProcessID); e != nil {
				codes[i] = e.Status
				return
			}
			codes[i] = 200
		}()
	}
	wg.Wait()
	require.NoError(t, err)
	rest, err := io.ReadAll(d.File)
	require.NoError(t, err)
	require.NoError(t, d.File.Close())
	_, err = png.Decode(bytes.NewReader(append(first, rest...)))
	assert.NoError(t, err, "the stream opened before the removal is whole")
	assert.Equal(t, d.Size, int64(len(first)+len(rest)))

	var ok, notFound int
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 404:
			notFound++
		}
	}
	assert.Equal(t, 1, ok)
	assert.Equal(t, removers-1, notFound)
	_, e = s.Download(r.ProcessID)
	requireErr(t, e, 404, "not_found", ParamProcessID)
	assert.Zero(t, fileCount(t, s.cfg.WorkDir), "no file leaked")
}
