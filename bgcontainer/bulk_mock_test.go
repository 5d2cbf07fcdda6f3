package bgcontainer_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// bulkJPEG returns a distinct small JPEG.
func bulkJPEG(t testing.TB, seed int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{R: uint8(seed * 9), G: uint8(x * 3), B: uint8(y * 5), A: 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, nil))
	return b.Bytes()
}

func writeBulkImages(t *testing.T, dir string, n int) []string {
	t.Helper()
	var rels []string
	for i := range n {
		rel := fmt.Sprintf("img%03d.jpg", i)
		if i%3 == 0 {
			rel = filepath.Join("sub", rel)
		}
		full := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, bulkJPEG(t, i), 0o644))
		rels = append(rels, rel)
	}
	return rels
}

func pngName(rel string) string { return rel[:len(rel)-len(filepath.Ext(rel))] + ".png" }

// TestBulkRemoveDir removes the backgrounds of a folder through the mock
// (activating it on the way): PNGs at the same relative paths, a broken
// file listed as a failure with its typed error, every job removed from
// the container.
func TestBulkRemoveDir(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, nil)
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	rels := writeBulkImages(t, in, 8)
	require.NoError(t, os.WriteFile(filepath.Join(in, "broken.jpg"), []byte("not a jpeg"), 0o644))
	rep, err := ts.Client.RemoveDir(t.Context(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{Concurrency: 3})
	require.NoError(t, err)
	assert.Equal(t, 9, rep.Total)
	assert.Equal(t, 8, rep.Done, "%+v", rep.Failures)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, "broken.jpg", rep.Failures[0].Item.ID)
	assert.Error(t, rep.Failures[0].Err)
	assert.NotEmpty(t, rep.Failures[0].Kind)
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(out, pngName(rel)))
		require.NoError(t, err)
		assert.Equal(t, []byte("\x89PNG"), b[:4])
	}
	ts.WaitIdle()
	assert.Zero(t, ts.Mock.JobCount(), "every job removed")
}

// TestBulkRemoveDirResume cancels a run after a fixed number of files and
// resumes it: nothing done is redone, nothing is lost.
func TestBulkRemoveDirResume(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, &bgmock.Options{Activated: true})
	in, out := t.TempDir(), t.TempDir()
	const n, cut = 15, 5
	rels := writeBulkImages(t, in, n)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var finished atomic.Int32
	var done sync.Map
	rep1, err := ts.Client.RemoveDir(ctx, in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{
		OnResult: func(r pfc.BulkResult[*bgcontainer.Result]) {
			done.Store(r.Item.ID, true)
			if finished.Add(1) == cut {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, rep1.Done, cut)
	assert.Equal(t, n, rep1.Done+rep1.Interrupted)
	rep2, err := ts.Client.RemoveDir(t.Context(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{
		OnResult: func(r pfc.BulkResult[*bgcontainer.Result]) {
			_, was := done.Load(r.Item.ID)
			assert.Equal(t, was, r.Skipped, r.Item.ID)
			if r.Skipped {
				assert.NotEmpty(t, r.JobID)
			}
		},
	})
	require.NoError(t, err)
	assert.Equal(t, rep1.Done, rep2.Skipped)
	assert.Equal(t, n-rep1.Done, rep2.Done)
	for _, rel := range rels {
		assert.FileExists(t, filepath.Join(out, pngName(rel)))
	}
	// A job whose SubmitImage answer was cut off by the cancellation
	// cannot be removed (its id never arrived; see RemoveBackground): at
	// most one per file interrupted in flight is left.
	ts.WaitIdle()
	assert.LessOrEqual(t, ts.Mock.JobCount(), rep1.Interrupted)
}

// TestBulkRemoveAll processes a sequence of items; bad options fail first.
func TestBulkRemoveAll(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, &bgmock.Options{Activated: true})
	in, out := t.TempDir(), t.TempDir()
	rels := writeBulkImages(t, in, 3)
	var items []pfc.BulkItem
	for _, rel := range rels {
		items = append(items, pfc.BulkItem{SrcPath: filepath.Join(in, rel), DstPath: filepath.Join(out, filepath.Base(pngName(rel)))})
	}
	rep, err := ts.Client.RemoveAll(t.Context(), slices.Values(items), nil, &pfc.BulkOptions[*bgcontainer.Result]{Manifest: filepath.Join(out, "m.jsonl")})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Done)
	_, err = ts.Client.RemoveAll(t.Context(), slices.Values(items), nil, &pfc.BulkOptions[*bgcontainer.Result]{RateLimit: -1})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
}
