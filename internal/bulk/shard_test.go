package bulk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// TestShardSplit: every ID falls to exactly one shard of n, the shards
// are of similar size, and the split is pinned (FNV-1a 64 of the ID): a
// change would make reruns of a sharded run redo or skip others' items.
func TestShardSplit(t *testing.T) {
	t.Parallel()
	const n = 4
	sizes := make([]int, n)
	for i := range 1000 {
		id := fmt.Sprintf("dir%d/img%04d.jpg", i%7, i)
		in := 0
		for s := range n {
			if (Shard{Index: s, Count: n}).Has(id) {
				in++
				sizes[s]++
			}
		}
		require.Equal(t, 1, in, "item %q is in exactly one shard", id)
	}
	for s, size := range sizes {
		assert.InDelta(t, 250, size, 60, "shard %d's size", s)
	}
	assert.Equal(t, []int{ShardOf("a/b.jpg", 4), ShardOf("a/b.jpg", 7)}, []int{pinned("a/b.jpg", 4), pinned("a/b.jpg", 7)})
	assert.True(t, Shard{}.Has("anything"), "the zero shard takes every item")
	assert.Equal(t, ".pfc-bulk.shard-2-of-4.jsonl", Shard{Index: 2, Count: 4}.ManifestNameOf())
	assert.Equal(t, ManifestName, Shard{}.ManifestNameOf())
}

// pinned is FNV-1a 64 written out, the reference for ShardOf.
func pinned(id string, n int) int {
	h := uint64(14695981039346656037)
	for i := range len(id) {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return int(h % uint64(n))
}

// TestShardRun: a sharded run does only its items, counts only them, and
// names its shard in the report; the shards together do every item once.
func TestShardRun(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 40)
	w := &copyWork{}
	total := 0
	for i := range 3 {
		sh := Shard{Index: i, Count: 3}
		rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{Shard: sh})
		require.NoError(t, err)
		assert.Equal(t, sh, rep.Shard)
		assert.Equal(t, rep.Total, rep.Done)
		total += rep.Total
	}
	assert.Equal(t, len(items), total)
	for _, it := range items {
		assert.Equal(t, 1, w.count(it.ID), "item %s done once over the shards", it.ID)
	}
}

// TestShardDirItems: the Dir listing keeps the shard's items, with the
// number of them, and the default manifest is the shard's own.
func TestShardDirItems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	makeInputs(t, dir, 30)
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	seen := map[string]bool{}
	for i := range 3 {
		s := Settings{Shard: Shard{Index: i, Count: 3}}
		items, n, err := DirItems(in, out, &s, nil)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(out, fmt.Sprintf(".pfc-bulk.shard-%d-of-3.jsonl", i)), s.Manifest)
		got := slices.Collect(items)
		assert.Len(t, got, n)
		for _, it := range got {
			assert.False(t, seen[it.ID], "%s listed by two shards", it.ID)
			seen[it.ID] = true
		}
	}
	assert.Len(t, seen, 30)
	_, err := os.Stat(out)
	assert.True(t, errors.Is(err, os.ErrNotExist), "listing writes nothing")
}

// TestShardInvalid: an impossible shard is a validation error naming
// the field, before anything runs.
func TestShardInvalid(t *testing.T) {
	t.Parallel()
	for _, sh := range []Shard{{Index: 4, Count: 4}, {Index: -1, Count: 2}, {Index: 1, Count: 0}, {Count: -3}} {
		_, err := Run(context.Background(), slices.Values([]Item{{Src: "a", Dst: "b"}}),
			func(context.Context, Item) (int, error) { return 0, nil }, Options[int]{Shard: sh})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve, "shard %+v", sh)
		assert.Contains(t, err.Error(), "Shard")
		s := Settings{Shard: sh}
		_, _, err = DirItems(t.TempDir(), t.TempDir(), &s, nil)
		require.ErrorAs(t, err, &ve, "shard %+v", sh)
	}
}
