package pfc

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
