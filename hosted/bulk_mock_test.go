package hosted_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// instantProcessor makes mock jobs complete at once: the output is the
// input.
var instantProcessor = hostedmock.ProcessorFunc(func(_ context.Context, src io.Reader, _ hostedmock.JobRequest, dst io.Writer) (*hostedmock.JobResult, error) {
	_, err := io.Copy(dst, src)
	return &hostedmock.JobResult{}, err
})

// smallJPEG returns a distinct w×h JPEG for seed.
func smallJPEG(tb testing.TB, seed, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(seed), G: uint8(seed >> 8), B: uint8(x + y), A: 255})
		}
	}
	var b bytes.Buffer
	require.NoError(tb, jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}))
	return b.Bytes()
}

// writeImages writes n distinct small JPEGs to dir (some in a
// subdirectory) and returns their relative paths.
func writeImages(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	var rels []string
	for i := range n {
		rel := fmt.Sprintf("img%04d.jpg", i)
		if i%3 == 0 {
			rel = filepath.Join("sub", rel)
		}
		full := filepath.Join(dir, rel)
		require.NoError(tb, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(tb, os.WriteFile(full, smallJPEG(tb, i, 48, 40), 0o644))
		rels = append(rels, rel)
	}
	return rels
}

// countingTransport counts requests per path prefix.
type countingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	p := r.URL.Path
	if i := strings.LastIndex(p, "/v2/"); i >= 0 {
		p = p[i+4:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[:j]
		}
	}
	c.n[p]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *countingTransport) count(p string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[p]
}

// startInstantMock starts the hosted mock with instant processing and
// returns it with a client whose requests are counted.
func startInstantMock(t *testing.T) (*hostedmock.TestServer, *hosted.Client, *countingTransport) {
	t.Helper()
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor, Workers: 4})
	ct := &countingTransport{next: srv.Server.Client().Transport}
	c, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL),
		pfc.WithHTTPClient(&http.Client{Transport: ct}),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	require.NoError(t, err)
	return srv, c, ct
}

// TestCorrectDirMock corrects a folder through the mock: every image is
// corrected into the same relative path, a rejected image and a non-image
// are failures with their typed errors and kinds, and the manifest
// records them all.
func TestCorrectDirMock(t *testing.T) {
	t.Parallel()
	_, c, _ := startInstantMock(t)
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	rels := writeImages(t, in, 12)
	require.NoError(t, os.WriteFile(filepath.Join(in, "tiny.jpg"), smallJPEG(t, 99, 10, 10), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(in, "text.png"), []byte("not an image at all"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(in, "readme.txt"), []byte("skipped"), 0o644))

	var mu sync.Mutex
	var progress []pfc.BulkProgress
	rep, err := c.CorrectDir(context.Background(), in, out, hosted.NewCorrection(), &pfc.BulkOptions[*hosted.Job]{
		Concurrency: 3,
		OnProgress: func(p pfc.BulkProgress) {
			mu.Lock()
			progress = append(progress, p)
			mu.Unlock()
		},
	})
	require.NoError(t, err)
	assert.Equal(t, 14, rep.Total)
	assert.Equal(t, 12, rep.Done)
	assert.Equal(t, 2, rep.Failed)
	for _, rel := range rels {
		got, err := os.ReadFile(filepath.Join(out, rel))
		require.NoError(t, err)
		want, _ := os.ReadFile(filepath.Join(in, rel))
		assert.Equal(t, want, got, rel)
	}
	require.Len(t, rep.Failures, 2)
	byID := map[string]pfc.BulkResult[*hosted.Job]{}
	for _, f := range rep.Failures {
		byID[f.Item.ID] = f
	}
	tiny := byID["tiny.jpg"]
	var je *hosted.JobError
	require.ErrorAs(t, tiny.Err, &je)
	assert.ErrorIs(t, tiny.Err, hosted.ErrJobRejected)
	assert.Equal(t, "job_rejected", tiny.Kind)
	require.NotNil(t, tiny.Result)
	assert.Equal(t, tiny.Result.ID, tiny.JobID)
	assert.Error(t, byID["text.png"].Err)
	assert.NoFileExists(t, filepath.Join(out, "tiny.jpg"))

	last := progress[len(progress)-1]
	assert.Equal(t, pfc.BulkProgress{Total: 14, Done: 12, Failed: 2, Bytes: last.Bytes, Elapsed: last.Elapsed}, last)

	man, err := os.ReadFile(filepath.Join(out, ".pfc-bulk.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 14, bytes.Count(man, []byte(`"status":"done"`))+bytes.Count(man, []byte(`"status":"failed"`)))
	assert.Equal(t, rep.Started, bytes.Count(man, []byte(`"status":"started"`)), "every job started is recorded before the wait")
	assert.Contains(t, string(man), `"kind":"job_rejected"`)
	assert.NotContains(t, string(man), hostedmock.DefaultAPIKey)
}

// TestCorrectDirResumeMock cancels a folder run (40 images, and 1,000
// unless -short) after a fixed number of files and reruns it: files recorded done are not sent again (counted at
// the wire: one /upload per file corrected), every output is there, and
// the second run corrects exactly the rest.
func TestCorrectDirResumeMock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, cut int }{{40, 13}, {1000, 487}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			if tc.n > 100 && (testing.Short() || !heavyTests) {
				t.Skip("1,000 images: with -tags heavy (.ci/run's heavy step)")
			}
			t.Parallel()
			testCorrectDirResume(t, tc.n, tc.cut)
		})
	}
}

func testCorrectDirResume(t *testing.T, n, cut int) {
	_, c, ct := startInstantMock(t)
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, n)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var finished atomic.Int32
	var doneIDs sync.Map
	rep1, err := c.CorrectDir(ctx, in, out, nil, &pfc.BulkOptions[*hosted.Job]{
		Concurrency: 4,
		OnResult: func(r pfc.BulkResult[*hosted.Job]) {
			if r.Err == nil {
				doneIDs.Store(r.Item.ID, true)
			}
			if finished.Add(1) == int32(cut) {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep1)
	assert.GreaterOrEqual(t, rep1.Done, cut)
	assert.Zero(t, rep1.Failed)
	assert.Equal(t, n, rep1.Done+rep1.Interrupted)
	uploads1 := ct.count("upload")

	rep2, err := c.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions[*hosted.Job]{
		Concurrency: 4,
		OnResult: func(r pfc.BulkResult[*hosted.Job]) {
			_, wasDone := doneIDs.Load(r.Item.ID)
			assert.Equal(t, wasDone, r.Skipped, r.Item.ID)
			if r.Skipped {
				assert.NotEmpty(t, r.JobID, "the job id comes from the manifest")
			}
		},
	})
	require.NoError(t, err)
	assert.Equal(t, rep1.Done, rep2.Skipped)
	assert.Equal(t, n-rep1.Done, rep2.Done)
	assert.Zero(t, rep2.Redone, "the mock keeps its jobs: none forgotten")
	assert.Equal(t, n-rep1.Done-rep2.Collected, ct.count("upload")-uploads1, "one upload per file neither done nor in flight before")
	assert.Equal(t, n-rep1.Done-rep2.Collected, rep2.Started)
	for _, rel := range rels {
		assert.FileExists(t, filepath.Join(out, rel))
	}
}

// TestCorrectAllMock corrects an iter.Seq of items, with a manifest, and
// renames nothing; an invalid option fails before anything is sent.
func TestCorrectAllMock(t *testing.T) {
	t.Parallel()
	_, c, ct := startInstantMock(t)
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 5)
	var items []pfc.BulkItem
	for _, rel := range rels {
		items = append(items, pfc.BulkItem{SrcPath: filepath.Join(in, rel), DstPath: filepath.Join(out, filepath.Base(rel)+".out.png")})
	}
	rep, err := c.CorrectAll(context.Background(), slices.Values(items), hosted.NewCorrection().WithOutput(pfc.OutputPNG, 0), &pfc.BulkOptions[*hosted.Job]{
		Manifest: filepath.Join(out, "run.jsonl"), RateLimit: 1000, RateBurst: 5,
	})
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Done)
	for _, it := range items {
		assert.FileExists(t, it.DstPath)
	}

	// A bad item is a failure with the package's own error type.
	rep, err = c.CorrectAll(context.Background(), slices.Values([]pfc.BulkItem{{SrcPath: items[0].SrcPath}}), nil, nil)
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	var ive *pfc.ValidationError
	require.ErrorAs(t, rep.Failures[0].Err, &ive)
	assert.Equal(t, []string{"DstPath"}, ive.Fields())
	assert.Equal(t, "invalid_parameter", rep.Failures[0].Kind)

	before := ct.count("upload")
	_, err = c.CorrectAll(context.Background(), slices.Values(items), &hosted.CorrectionOptions{Width: 5}, nil)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, before, ct.count("upload"))
	_, err = c.CorrectDir(context.Background(), "", "", nil, nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"inDir", "outDir"}, ve.Fields())
}

// TestCorrectDirOutputNames: the output extension follows OutputType.
func TestCorrectDirOutputNames(t *testing.T) {
	t.Parallel()
	_, c, _ := startInstantMock(t)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, 2)
	rep, err := c.CorrectDir(context.Background(), in, out, hosted.NewCorrection().WithOutput(pfc.OutputPNG, 0), nil)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Done, "%v", errors.Join(func() []error {
		var e []error
		for _, f := range rep.Failures {
			e = append(e, f.Err)
		}
		return e
	}()...))
	assert.FileExists(t, filepath.Join(out, "img0001.png"))
	assert.FileExists(t, filepath.Join(out, "sub", "img0000.png"))
}

// TestCorrectDirNoLeak: a run cancelled mid-way leaves no goroutine
// behind once the server is closed. Not parallel: it looks at every
// goroutine.
func TestCorrectDirNoLeak(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) }) // runs last
	_, c, _ := startInstantMock(t)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var finished atomic.Int32
	_, err := c.CorrectDir(ctx, in, out, nil, &pfc.BulkOptions[*hosted.Job]{
		Concurrency: 4,
		OnResult: func(pfc.BulkResult[*hosted.Job]) {
			if finished.Add(1) == 3 {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
}

// TestCorrectAllProgressRate: the bulk progress shows the client's rate
// budget, and its cut when the service answers 429. The mock allows one
// API request a second on a clock that never moves: the upload is
// answered, the job start and its retries get 429 (held 1 ms each,
// WithMaxRetryAfter), each halving the rate.
func TestCorrectAllProgressRate(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := hostedmock.Start(t, &hostedmock.Options{Processor: instantProcessor, Clock: clk, RateLimit: 1},
		pfc.WithRateLimit(100, 0), pfc.WithMaxRetryAfter(time.Millisecond), pfc.WithRetries(2, time.Millisecond, time.Millisecond))
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, 1)
	items := []pfc.BulkItem{{SrcPath: filepath.Join(in, rels[0]), DstPath: filepath.Join(out, "a.jpg")}}
	var rates []float64
	rep, err := srv.Client.CorrectAll(context.Background(), slices.Values(items), nil, &pfc.BulkOptions[*hosted.Job]{
		OnProgress: func(p pfc.BulkProgress) { rates = append(rates, p.Rate) },
	})
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, "http_429", rep.Failures[0].Kind)
	assert.Equal(t, []float64{100, 12.5}, rates, "start, then after three 429s")
}
