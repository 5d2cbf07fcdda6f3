package bulk

import (
	"fmt"
	"hash/fnv"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// Shard selects the part of a run's items one worker of n takes: the
// items whose ID hashes (FNV-1a, 64 bits) to Index modulo Count. The
// split depends on the IDs alone, so it is the same on every machine and
// every rerun. The zero value (Count 0) takes every item.
type Shard struct {
	Index, Count int
}

// Check reports a shard that selects nothing sensible; field names the
// option in the caller's terms.
func (s Shard) Check(field string) error {
	if s.Count == 0 && s.Index == 0 {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		var fe apierr.FieldErrors
		fe.Add(field, "must have 0 <= Index < Count, got index %d of %d", s.Index, s.Count)
		return fe.Err()
	}
	return nil
}

// On reports whether the run is sharded.
func (s Shard) On() bool { return s.Count > 0 }

// Has reports whether the item of the given ID belongs to the shard.
func (s Shard) Has(id string) bool {
	if s.Count <= 1 {
		return true
	}
	return ShardOf(id, s.Count) == s.Index
}

// ShardOf is the shard of n that the item of the given ID falls to.
func ShardOf(id string, n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum64() % uint64(n))
}

// ManifestNameOf is the default manifest's file name for the shard:
// ManifestName unsharded, else ".pfc-bulk.shard-<i>-of-<n>.jsonl", so
// that shards writing to one output folder keep one manifest each.
func (s Shard) ManifestNameOf() string {
	if !s.On() {
		return ManifestName
	}
	return fmt.Sprintf(".pfc-bulk.shard-%d-of-%d.jsonl", s.Index, s.Count)
}

// String is "i/n", or "" unsharded.
func (s Shard) String() string {
	if !s.On() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
