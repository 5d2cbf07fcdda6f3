package pfccontainer_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// writeImages writes n distinct small JPEGs under dir (every third in a
// subdirectory, with the same base name as one at the top) and returns
// their relative paths.
func writeImages(t *testing.T, dir string, n int) []string {
	t.Helper()
	var rels []string
	for i := range n {
		rel := fmt.Sprintf("img%03d.jpg", i)
		if i%3 == 0 {
			rel = filepath.Join("sub", fmt.Sprintf("img%03d.jpg", i+1))
		}
		full := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, jpegOf(t, 48, 40, i), 0o644))
		rels = append(rels, rel)
	}
	return rels
}

// TestMockCorrectDir corrects a folder over HTTP and in direct file mode;
// a non-image is a failure with its typed error, not a stop, and no job
// started (BulkReport.Started counts the others).
func TestMockCorrectDir(t *testing.T) {
	t.Parallel()
	for _, direct := range []bool{false, true} {
		t.Run(fmt.Sprint("direct=", direct), func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "mounts")
			_, c, _ := start(t, &pfcmock.Options{Root: root, Unlicensed: true})
			in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			rels := writeImages(t, in, 9)
			require.NoError(t, os.WriteFile(filepath.Join(in, "broken.png"), []byte("not a png"), 0o644))
			b := &pfc.BulkOptions[*pfccontainer.Correction]{Concurrency: 3}
			var rep *pfc.BulkReport[*pfccontainer.Correction]
			var err error
			if direct {
				rep, err = c.Direct(filepath.Join(root, "input"), filepath.Join(root, "output")).CorrectDir(t.Context(), in, out, nil, b)
			} else {
				rep, err = c.CorrectDir(t.Context(), in, out, nil, b)
			}
			require.NoError(t, err)
			assert.Equal(t, 10, rep.Total)
			assert.Equal(t, 9, rep.Done, "%+v", rep.Failures)
			assert.Equal(t, 9, rep.Started, "each corrected file is a job started (the cost report), in direct file mode too")
			require.Len(t, rep.Failures, 1)
			f := rep.Failures[0]
			assert.Equal(t, "broken.png", f.Item.ID)
			assert.Error(t, f.Err)
			assert.NotEmpty(t, f.Kind)
			for _, rel := range rels {
				got, err := os.ReadFile(filepath.Join(out, rel))
				require.NoError(t, err)
				want, _ := os.ReadFile(filepath.Join(in, rel))
				assert.Equal(t, want, got, "unlicensed: the output is the input (%s)", rel)
			}
		})
	}
}

// TestMockCorrectDirResume cancels a run after a fixed number of files and
// reruns it: nothing done is redone, nothing is lost.
func TestMockCorrectDirResume(t *testing.T) {
	t.Parallel()
	_, c, _ := start(t, &pfcmock.Options{Unlicensed: true})
	in, out := t.TempDir(), t.TempDir()
	const n, cut = 24, 7
	rels := writeImages(t, in, n)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var finished atomic.Int32
	var done sync.Map
	rep1, err := c.CorrectDir(ctx, in, out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{
		OnResult: func(r pfc.BulkResult[*pfccontainer.Correction]) {
			done.Store(r.Item.ID, true)
			if finished.Add(1) == cut {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, rep1.Done, cut)
	assert.Equal(t, n, rep1.Done+rep1.Interrupted)

	rep2, err := c.CorrectDir(t.Context(), in, out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{
		OnResult: func(r pfc.BulkResult[*pfccontainer.Correction]) {
			_, was := done.Load(r.Item.ID)
			assert.Equal(t, was, r.Skipped, r.Item.ID)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, rep1.Done, rep2.Skipped)
	assert.Equal(t, n-rep1.Done, rep2.Done)
	for _, rel := range rels {
		assert.FileExists(t, filepath.Join(out, rel))
	}
}

// TestMockCorrectAll corrects a sequence of items with PNG output; invalid
// options fail before anything runs.
func TestMockCorrectAll(t *testing.T) {
	t.Parallel()
	_, c, _ := start(t, &pfcmock.Options{Unlicensed: true})
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 4)
	var items []pfc.BulkItem
	for _, rel := range rels {
		items = append(items, pfc.BulkItem{SrcPath: filepath.Join(in, rel), DstPath: filepath.Join(out, filepath.Base(rel)+".png")})
	}
	rep, err := c.CorrectAll(t.Context(), slices.Values(items), pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0), nil)
	require.NoError(t, err)
	// Two items share a base name, hence an output: the later one fails
	// rather than replace the earlier's result.
	assert.Equal(t, 3, rep.Done)
	require.Equal(t, 1, rep.Failed)
	assert.Equal(t, "invalid_parameter", rep.Failures[0].Kind)
	assert.ErrorContains(t, rep.Failures[0].Err, "is also the output of item")
	_, err = c.CorrectAll(t.Context(), slices.Values(items), &pfccontainer.CorrectionOptions{Width: 1}, nil)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	_, err = c.Direct("", "").CorrectAll(t.Context(), slices.Values(items), nil, nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"InputDir", "OutputDir"}, ve.Fields())
}

// TestCorrectDirTempFilesNamedAfterTheRun: the work of a run with a
// manifest writes each output through a temporary file named after the
// run (".<name>.<key>-<token>.<digits>.partial"), the file Scope the run
// passes to the client's flow with each item, so that a later run can
// tell a dead run's leftovers from another writer's.
func TestCorrectDirTempFilesNamedAfterTheRun(t *testing.T) {
	t.Parallel()
	const base = "http://pfc-scope.test:8081"
	in, out := t.TempDir(), t.TempDir()
	img := jpegOf(t, 16, 16, 1)
	require.NoError(t, os.WriteFile(filepath.Join(in, "a.jpg"), img, 0o644))
	var seen []string // the output folder while the result is written
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPut, base+"/pfc", httpmock.NewStringResponder(200, `{"imageKey":"k1.jpg"}`))
	mt.RegisterResponder(http.MethodGet, base+"/pfc/k1.jpg", httpmock.NewStringResponder(200, `{"corrected_url":"`+base+`/output/k1.jpg"}`))
	mt.RegisterResponder(http.MethodGet, base+"/output/k1.jpg", func(*http.Request) (*http.Response, error) {
		entries, err := os.ReadDir(out)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			seen = append(seen, e.Name())
		}
		return httpmock.NewBytesResponse(200, img), nil
	})
	c, err := pfccontainer.NewClient(pfc.WithBaseURL(base), pfc.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	rep, err := c.CorrectDir(t.Context(), in, out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{
		Manifest: filepath.Join(t.TempDir(), "run.jsonl"),
	})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Done, "%+v", rep.Failures)
	require.Len(t, seen, 1)
	assert.Regexp(t, `^\.a\.jpg\.[^.]+-[^.]+\.[0-9]+\.partial$`, seen[0], "the temporary file is not named after the run")
}
