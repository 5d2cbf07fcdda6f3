package bulk

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/internal/fileio"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// makeInputs writes n small input files into dir/in and returns the items
// mapping them to dir/out.
func makeInputs(t *testing.T, dir string, n int) []Item {
	t.Helper()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.MkdirAll(in, 0o755))
	items := make([]Item, n)
	for i := range items {
		name := fmt.Sprintf("img%04d.jpg", i)
		src := filepath.Join(in, name)
		require.NoError(t, os.WriteFile(src, []byte("input "+name), 0o644))
		items[i] = Item{ID: name, Src: src, Dst: filepath.Join(dir, "out", name)}
	}
	return items
}

// manifestInputs is the set-up of most manifest tests: n inputs (see
// makeInputs) in a temporary dir, and the path of a manifest in it.
func manifestInputs(t *testing.T, n int) (dir string, items []Item, man string) {
	t.Helper()
	dir = t.TempDir()
	return dir, makeInputs(t, dir, n), filepath.Join(dir, ManifestName)
}

// runOK runs items with o and no work function (o.Start does it), and
// requires that the run did not stop early.
func runOK(t *testing.T, items []Item, o Options[string]) *Report[string] {
	t.Helper()
	rep, err := Run(context.Background(), slices.Values(items), nil, o)
	require.NoError(t, err)
	return rep
}

// copyWork is a work function that copies Src to Dst atomically and counts
// its calls per ID.
type copyWork struct {
	mu    sync.Mutex
	calls map[string]int
	// before, if set, runs first; an error from it is the item's.
	before func(ctx context.Context, it Item) error
}

func (w *copyWork) do(ctx context.Context, it Item) (string, error) {
	w.mu.Lock()
	if w.calls == nil {
		w.calls = map[string]int{}
	}
	w.calls[it.ID]++
	w.mu.Unlock()
	if w.before != nil {
		if err := w.before(ctx, it); err != nil {
			return "", err
		}
	}
	in, _, err := fileio.OpenParamScoped(it.Scope, "srcPath", it.Src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	err = fileio.WriteFileAtomicScoped(it.Scope, it.Dst, func(out io.Writer) error {
		_, err := io.Copy(out, in)
		return err
	})
	return "result of " + it.ID, err
}

func (w *copyWork) count(id string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[id]
}

// readManifest returns the manifest's records in order.
func readManifest(t *testing.T, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var recs []Record
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	for _, line := range slices.Collect(lines(data)) {
		m, _, err := readRecords(bytes.NewReader(line))
		require.NoError(t, err)
		require.Len(t, m, 1, "every line of the manifest parses: %q", line)
		for _, r := range m {
			recs = append(recs, r)
		}
	}
	return recs
}

// lines yields data's lines with their newline.
func lines(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(data) > 0 {
			i := slices.Index(data, '\n')
			if i < 0 {
				i = len(data) - 1
			}
			if !yield(data[:i+1]) {
				return
			}
			data = data[i+1:]
		}
	}
}

// writeNamed writes one small file per name into dir/in and returns dir/in;
// it skips the test where the file system refuses such names.
func writeNamed(t *testing.T, dir string, names []string) string {
	t.Helper()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.MkdirAll(in, 0o755))
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(in, n), []byte("input "+n), 0o644); err != nil {
			t.Skipf("the file system refuses the name %q: %v", n, err)
		}
	}
	return in
}
