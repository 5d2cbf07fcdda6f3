package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunResumeAfterCancel cancels a run after a fixed number of items
// have finished, with others in flight, then resumes it: every item ends
// done exactly once, none recorded done is worked on again, and the
// manifest parses line by line.
func TestRunResumeAfterCancel(t *testing.T) {
	t.Parallel()
	// At most cut+3 items finish (4 workers): some are always left.
	for _, cut := range []int{1, 17, 46} {
		dir := t.TempDir()
		items := makeInputs(t, dir, 50)
		man := filepath.Join(dir, "out", ManifestName)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		// Run 1: items after the cut block until cancelled, so some are
		// in flight when the run stops.
		var mu sync.Mutex
		finished := 0
		doneIDs := map[string]bool{}
		w1 := &copyWork{before: func(ctx context.Context, it Item) error {
			mu.Lock()
			blocked := finished >= cut
			mu.Unlock()
			if blocked {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}}
		rep1, err := Run(ctx, slices.Values(items), w1.do, Options[string]{
			Manifest: man, Concurrency: 4, Total: len(items),
			OnResult: func(r Result[string]) {
				require.NoError(t, r.Err)
				mu.Lock()
				finished++
				doneIDs[r.Item.ID] = true
				if finished == cut {
					cancel()
				}
				mu.Unlock()
			},
		})
		require.ErrorIs(t, err, context.Canceled)
		// Items past their check when the cut came still finish.
		assert.GreaterOrEqual(t, rep1.Done, cut)
		assert.Len(t, doneIDs, rep1.Done)
		assert.Equal(t, len(items)-rep1.Done, rep1.Interrupted)
		assert.Len(t, readManifest(t, man), rep1.Done)

		// Run 2 resumes.
		w2 := &copyWork{}
		var skipped []string
		rep2, err := Run(context.Background(), slices.Values(items), w2.do, Options[string]{
			Manifest: man, Concurrency: 4, Total: len(items),
			OnResult: func(r Result[string]) {
				if r.Skipped {
					skipped = append(skipped, r.Item.ID)
					require.NotNil(t, r.Record)
				}
			},
		})
		require.NoError(t, err)
		assert.Equal(t, rep1.Done, rep2.Skipped)
		assert.Equal(t, len(items)-rep1.Done, rep2.Done)
		assert.Zero(t, rep2.Failed+rep2.Interrupted)
		for _, it := range items {
			if doneIDs[it.ID] {
				assert.Zero(t, w2.count(it.ID), "%s was done in run 1 and redone", it.ID)
				assert.Contains(t, skipped, it.ID)
			} else {
				assert.Equal(t, 1, w2.count(it.ID), "%s", it.ID)
			}
			got, err := os.ReadFile(it.Dst)
			require.NoError(t, err)
			assert.Equal(t, "input "+it.ID, string(got))
		}
		recs := readManifest(t, man)
		assert.Len(t, recs, len(items), "one record per item, none duplicated")
		ids := map[string]int{}
		for _, r := range recs {
			ids[r.ID]++
		}
		assert.Len(t, ids, len(items))
		// No leftover temporary files beside the outputs.
		ents, err := os.ReadDir(filepath.Join(dir, "out"))
		require.NoError(t, err)
		assert.Len(t, ents, len(items)+1) // outputs and the manifest
	}
}

// TestRunTornManifestLine: a crash mid-append leaves a last line without
// its newline; the resumed run ignores it, cuts it off, redoes that item
// and leaves a manifest whose every line parses.
func TestRunTornManifestLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 5)
	man := filepath.Join(dir, "m.jsonl")
	w1 := &copyWork{}
	_, err := Run(context.Background(), slices.Values(items[:3]), w1.do, Options[string]{Manifest: man, Concurrency: 1})
	require.NoError(t, err)
	data, err := os.ReadFile(man)
	require.NoError(t, err)
	// Tear the last record in half, and put a garbage line before it.
	ls := slices.Collect(lines(data))
	require.Len(t, ls, 3)
	torn := append([]byte{}, ls[0]...)
	torn = append(torn, ls[1]...)
	torn = append(torn, []byte("{\"id\": garbage\n")...)
	torn = append(torn, ls[2][:len(ls[2])/2]...)
	require.NoError(t, os.WriteFile(man, torn, 0o644))

	w2 := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w2.do, Options[string]{Manifest: man, Concurrency: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Skipped)
	assert.Equal(t, 3, rep.Done) // the torn one and the two new ones
	assert.Equal(t, 1, w2.count(items[2].ID))
	assert.Zero(t, w2.count(items[0].ID))

	data, err = os.ReadFile(man)
	require.NoError(t, err)
	got := slices.Collect(lines(data))
	require.Len(t, got, 6) // 2 kept + garbage + 3 new
	for i, l := range got {
		if i == 2 {
			continue // the garbage line, ignored
		}
		m, _, err := readRecords(bytes.NewReader(l))
		require.NoError(t, err)
		assert.Len(t, m, 1, "line %d parses: %q", i, l)
	}
}

// TestRunRedoesMissingOutput: a record says done but the output is gone:
// the item is done again rather than skipped.
func TestRunRedoesMissingOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 2)
	man := filepath.Join(dir, "m.jsonl")
	_, err := Run(context.Background(), slices.Values(items), (&copyWork{}).do, Options[string]{Manifest: man})
	require.NoError(t, err)
	require.NoError(t, os.Remove(items[1].Dst))
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: man})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Skipped)
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, 1, w.count(items[1].ID))
	assert.FileExists(t, items[1].Dst)
}

// TestRunManifestUnwritable: a manifest that cannot be opened is a
// *pfc.ManifestError before anything runs.
func TestRunManifestUnwritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := makeInputs(t, dir, 1)
	w := &copyWork{}
	_, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Manifest: filepath.Join(items[0].Src, "m.jsonl")})
	var me *pfc.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "open", me.Op)
	assert.Zero(t, w.count(items[0].ID))
}

// TestManifestKeepsRecordsAfterAnOversizeLine: a foreign line longer than
// maxLine is skipped whole; the records after it are kept and the file is
// not cut (its length used to count only the kept part of the line, and
// the manifest was truncated in the middle).
func TestManifestKeepsRecordsAfterAnOversizeLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ManifestName)
	rec := func(id string) string {
		b, err := json.Marshal(Record{ID: id, Status: StatusDone})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	content := rec("a") + strings.Repeat("x", 2*maxLine) + "\n" + rec("b") + rec("c")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	f, prior, _, err := openManifest(path)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Len(t, prior, 3)
	assert.Contains(t, prior, "c")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(content), len(got), "nothing cut")
}
