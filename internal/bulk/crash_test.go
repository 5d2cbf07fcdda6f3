package bulk

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// crashEnv names the directory of a crash test's child process.
const crashEnv = "PFC_BULK_CRASH_DIR"

// crashAfter is how many items the child finishes before it dies.
const crashAfter = 20

// TestRunResumeAfterCrash runs a bulk run in a child process that dies
// (os.Exit, no cleanup) once 20 items are done, while four others are in
// flight with half-written temporary outputs. The resumed run skips
// exactly the 20, does the rest once, removes the crash's temporary
// files, and every output is whole.
func TestRunResumeAfterCrash(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 60)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunResumeAfterCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	require.Equal(t, 3, ee.ExitCode(), "%s", out)

	man := filepath.Join(dir, "out", ManifestName)
	require.Len(t, readManifest(t, man), crashAfter)
	require.NotEmpty(t, partials(t, filepath.Join(dir, "out")), "the crash left temporary files")

	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man, Concurrency: 4})
	require.NoError(t, err)
	assert.Equal(t, crashAfter, rep.Skipped)
	assert.Equal(t, len(items)-crashAfter, rep.Done)
	for i, it := range items {
		if i < crashAfter {
			assert.Zero(t, w.count(it.ID), "%s was done before the crash", it.ID)
		} else {
			assert.Equal(t, 1, w.count(it.ID), it.ID)
		}
		got, err := os.ReadFile(it.Dst)
		require.NoError(t, err)
		assert.Equal(t, "input "+it.ID, string(got))
	}
	assert.Empty(t, partials(t, filepath.Join(dir, "out")))
	assert.Len(t, readManifest(t, man), len(items))
}

// crashChild is the child's run: items 0..19 complete, later ones write
// half their output and hang, and the 20th result kills the process.
func crashChild(dir string) {
	ents, err := os.ReadDir(filepath.Join(dir, "in"))
	if err != nil {
		panic(err)
	}
	var items []Item
	for _, e := range ents {
		items = append(items, Item{ID: e.Name(), Src: filepath.Join(dir, "in", e.Name()), Dst: filepath.Join(dir, "out", e.Name())})
	}
	index := map[string]int{}
	for i, it := range items {
		index[it.ID] = i
	}
	hang := make(chan struct{})                // never closed
	writing := make(chan struct{}, len(items)) // a hanging write has begun
	w := &copyWork{before: func(ctx context.Context, it Item) error {
		if index[it.ID] < crashAfter {
			return nil
		}
		_ = fileio.WriteFileAtomicScoped(it.Scope, it.Dst, func(out io.Writer) error {
			_, _ = io.WriteString(out, "half of ")
			writing <- struct{}{}
			<-hang
			return errors.New("unreachable")
		})
		return nil
	}}
	done := 0
	_, _ = Run(context.Background(), slices.Values(items), w.do, Options[string]{
		Manifest: filepath.Join(dir, "out", ManifestName), Concurrency: 4,
		OnResult: func(Result[string]) {
			if done++; done == crashAfter {
				// The crash comes once the four next items have begun
				// their (hanging) writes.
				go func() {
					for range 4 {
						<-writing
					}
					os.Exit(3) // a crash: nothing deferred runs
				}()
			}
		},
	})
	os.Exit(4) // not reached
}

// partials lists the temporary files in dir.
func partials(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".partial") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestDeadTemp: only a temporary file of this manifest (its key) and of
// another run (not this run's token) is a dead run's.
func TestDeadTemp(t *testing.T) {
	t.Parallel()
	key, token := strings.Repeat("k", keyLen), "0123abcd"
	other := "." + key + "-ffff0000"
	for name, want := range map[string]bool{
		".a.jpg" + other + ".123.partial": true, ".a.b.jpg" + other + ".9.partial": true,
		".a.jpg." + key + "-" + token + ".1.partial":                    false, // this run's own
		".a.jpg." + strings.Repeat("j", keyLen) + "-ffff0000.1.partial": false, // another manifest's
		".a.jpg.123.partial":             false, // no manifest's: a single call, or a run without one
		"a.jpg" + other + ".123.partial": false, ".a.jpg" + other + ".partial": false,
		".a.jpg" + other + ".12x.partial": false, ".a.jpg" + other + ".123": false,
		"." + other + ".1.partial": false, ".a.jpg." + key + "-ffff000.1.partial": false,
		".a.jpg." + key + "-FFFF0000.1.partial": false,
	} {
		assert.Equal(t, want, deadTemp(name, key, token), name)
	}
}
