package pfc

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard makes a bulk run one worker of Count (BulkOptions.Shard): it
// takes only the files whose ID (for the Dir variants, the path relative
// to the input folder, with forward slashes) hashes to Index, FNV-1a 64
// modulo Count. The split depends on the IDs alone, so Count workers with
// the indexes 0 to Count-1 (a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX) process every file exactly once between them, on
// any machine. Another Count is another split, and each shard keeps its
// own manifest: rerun with the same Count, or set SkipExisting. The zero
// value takes every file.
type Shard struct {
	// Index is this worker's shard, 0 <= Index < Count.
	Index int
	// Count is the number of shards; 0 means the run is not sharded.
	Count int
}

// Set reads s from "i/n", as String prints it: shard i (0 to n-1) of n.
// With String it makes *Shard a flag.Value: flag.Var(&b.Shard, "shard",
// "i/n"). A value that is not i/n is a *ValidationError naming Shard, and
// s is left unchanged.
func (s *Shard) Set(v string) error {
	is, ns, ok := strings.Cut(v, "/")
	if !ok {
		return shardError(v, "it has no /")
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return shardError(v, fmt.Sprintf("the count %q must be a positive integer", oneLine(ns, 32)))
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return shardError(v, fmt.Sprintf("the index %q must be an integer from 0 to %d", oneLine(is, 32), n-1))
	}
	*s = Shard{Index: i, Count: n}
	return nil
}

// String returns "i/n", which Set reads, or "" for the zero Shard (not
// sharded) and nil.
func (s *Shard) String() string {
	if s == nil || *s == (Shard{}) {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// shardError is Set's error about v (cut short), why it is not i/n.
func shardError(v, why string) error {
	return &ValidationError{Errors: []FieldError{{Field: "Shard", Message: fmt.Sprintf("%q is not i/n: %s", oneLine(v, 64), why)}}}
}
