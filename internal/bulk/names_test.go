package bulk

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nonUTF8Names are file names that are not valid UTF-8 (Linux allows any
// byte but '/' and NUL), two of which read alike once their invalid bytes
// are replaced by U+FFFD, and a valid name spelled with U+FFFD itself.
var nonUTF8Names = []string{"caf\xe9.jpg", "a\xff.jpg", "a\xfe.jpg", "a\ufffd.jpg", "\x80\x81.jpg", "ok.jpg"}

// TestRunResumesNonUTF8Names: a file whose name is not valid UTF-8 is
// recorded losslessly, so a rerun skips it instead of doing it again
// (a JSON string turns its invalid bytes into U+FFFD: its record never
// matched it), and names that read alike once mangled stay apart.
func TestRunResumesNonUTF8Names(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeNamed(t, dir, nonUTF8Names)
	items, err := Dir(in, filepath.Join(dir, "out"), DirOptions{Exts: []string{".jpg"}})
	require.NoError(t, err)
	require.Len(t, items, len(nonUTF8Names))
	man := filepath.Join(dir, "out", ManifestName)

	w1 := &copyWork{}
	rep1, err := Run(context.Background(), slices.Values(items), w1.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	require.Equal(t, len(items), rep1.Done)

	recs := readManifest(t, man)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	assert.ElementsMatch(t, nonUTF8Names, ids, "every name read back exactly")
	raw, err := os.ReadFile(man)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		assert.True(t, json.Valid([]byte(line)), "each line is JSON: %q", line)
	}

	w2 := &copyWork{}
	rep2, err := Run(context.Background(), slices.Values(items), w2.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, len(items), rep2.Skipped, "the rerun skips every file")
	assert.Zero(t, rep2.Done)
	for _, it := range items {
		assert.Zero(t, w2.count(it.ID), "%q done again", it.ID)
	}
}

// TestRunReadsOldManifests: a manifest written before names were recorded
// losslessly (no raw fields) still loads: its valid names are skipped,
// an item recorded with U+FFFD in place of its bytes is done once more,
// and from then on skipped.
func TestRunReadsOldManifests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeNamed(t, dir, []string{"ok.jpg", "caf\xe9.jpg"})
	out := filepath.Join(dir, "out")
	items, err := Dir(in, out, DirOptions{})
	require.NoError(t, err)
	for _, it := range items {
		require.NoError(t, os.MkdirAll(out, 0o755))
		require.NoError(t, os.WriteFile(it.Dst, []byte("done"), 0o644))
	}
	man := filepath.Join(out, ManifestName)
	old := `{"id":"ok.jpg","status":"done","src":"in/ok.jpg","dst":"out/ok.jpg","bytes":5,"ms":1,"time":"2026-01-02T03:04:05Z"}` + "\n" +
		`{"id":"caf\ufffd.jpg","status":"done","src":"in/caf\ufffd.jpg","dst":"out/caf\ufffd.jpg","bytes":5,"ms":1,"time":"2026-01-02T03:04:05Z"}` + "\n"
	require.NoError(t, os.WriteFile(man, []byte(old), 0o644))

	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Skipped)
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, 0, w.count("ok.jpg"))
	assert.Equal(t, 1, w.count("caf\xe9.jpg"))

	w = &copyWork{}
	rep, err = Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Skipped)
	assert.Zero(t, rep.Done)
}
