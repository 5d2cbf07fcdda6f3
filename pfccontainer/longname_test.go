package pfccontainer

import (
	"bytes"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: httpmock (mockClient).

// longName is a 255-byte file name: the longest ValidateImageKey accepts
// and a file system takes.
var longName = strings.Repeat("a", maxImageKeyLength-len(".png")) + ".png"

// longDir returns a directory that takes 255-byte names, or skips.
func longDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	probe := filepath.Join(dir, longName)
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Skipf("this file system takes no 255-byte names: %v", err)
	}
	require.NoError(t, os.Remove(probe))
	return dir
}

// TestLongNamesAreWritten: every name ValidateImageKey accepts can be put
// into InputDir and downloaded to, although the temporary file beside it
// needs a longer name (they failed with "file name too long" above 236
// bytes).
func TestLongNamesAreWritten(t *testing.T) {
	t.Parallel()
	require.NoError(t, ValidateImageKey(longName))
	c, mt := mockClient(t)
	img := testPNG(t)

	in := longDir(t)
	name, err := c.Direct(in, t.TempDir()).Put(t.Context(), longName, bytes.NewReader(img))
	require.NoError(t, err)
	assert.Equal(t, longName, name)
	got, err := os.ReadFile(filepath.Join(in, longName))
	require.NoError(t, err)
	assert.Equal(t, img, got)
	assertOnlyFiles(t, in, longName)

	mt.RegisterResponder(http.MethodGet, testBase+"/output/o.png", httpmock.NewBytesResponder(200, img))
	dir := longDir(t)
	n, err := c.DownloadFile(t.Context(), &Correction{CorrectedURL: testBase + "/output/o.png"}, filepath.Join(dir, longName))
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), n)
	got, err = os.ReadFile(filepath.Join(dir, longName))
	require.NoError(t, err)
	assert.Equal(t, img, got)
	assertOnlyFiles(t, dir, longName)
}

// TestLongNameLeftoverIsCleaned: the temporary file of a 255-byte output,
// left behind as a crash of a resumable bulk run (one with a manifest)
// would leave it, is recognised and removed by the next run of that
// manifest writing to that directory.
func TestLongNameLeftoverIsCleaned(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	img := testPNG(t)
	dir := longDir(t)
	dst := filepath.Join(dir, longName)

	// Note the temporary file's name while a run's download writes it.
	var mu sync.Mutex
	var during []string
	mt.RegisterResponder(http.MethodGet, testBase+"/output/o.png", func(*http.Request) (*http.Response, error) {
		body := &hookReader{r: bytes.NewReader(img), first: func() {
			ents, _ := os.ReadDir(dir)
			mu.Lock()
			defer mu.Unlock()
			for _, e := range ents {
				during = append(during, e.Name())
			}
		}}
		return &http.Response{StatusCode: 200, Body: body, ContentLength: int64(len(img)), Header: http.Header{}}, nil
	})
	src := filepath.Join(t.TempDir(), "in.png")
	require.NoError(t, os.WriteFile(src, img, 0o644))
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", jsonAnswer(200, `{"imageKey":"k.png"}`))
	mt.RegisterResponder(http.MethodGet, testBase+"/pfc/k.png",
		jsonAnswer(200, `{"corrected_url":"`+testBase+`/output/o.png","scene":2}`))
	man := filepath.Join(t.TempDir(), "run.jsonl")
	run := func() *pfc.BulkReport[*Correction] {
		rep, err := c.CorrectAll(t.Context(), iter.Seq[pfc.BulkItem](func(yield func(pfc.BulkItem) bool) {
			yield(pfc.BulkItem{SrcPath: src, DstPath: dst})
		}), nil, &pfc.BulkOptions[*Correction]{Manifest: man})
		require.NoError(t, err)
		return rep
	}
	require.Equal(t, 1, run().Done)
	mu.Lock()
	require.Len(t, during, 1, "the temporary file alone while downloading")
	stale := during[0]
	mu.Unlock()
	assert.LessOrEqual(t, len(stale), 255)
	assert.True(t, strings.HasPrefix(stale, ".") && strings.HasSuffix(stale, ".partial"), stale)
	require.NoError(t, os.Remove(dst))
	require.NoError(t, os.WriteFile(filepath.Join(dir, stale), []byte("half"), 0o600), "left by a crash")

	rep := run()
	require.Equal(t, 1, rep.Done, "%+v", rep.Failures)
	assertOnlyFiles(t, dir, longName)
}

// hookReader calls first before its first read.
type hookReader struct {
	r     io.Reader
	first func()
	once  sync.Once
}

func (h *hookReader) Read(p []byte) (int, error) {
	h.once.Do(h.first)
	return h.r.Read(p)
}

func (h *hookReader) Close() error { return nil }

// assertOnlyFiles checks that dir holds exactly names (no temporary file).
func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
