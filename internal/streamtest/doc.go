// Package streamtest holds what the SDK's tests and benchmarks of streamed
// uploads share: generated io.ReaderAt sources of any size that allocate
// nothing (Pattern, and JPEG for clients that sniff the content), and a
// sampler of the heap's peak growth while an upload runs (Start,
// PeakGrowth), which is how the tests prove a body is streamed, not
// buffered; SyncBuffer, a log destination safe for concurrent writes;
// and WaitingMain, the TestMain of packages whose tests mostly wait
// (MoreParallel, its parallelism, for a TestMain of its own).
// It is imported by test files only.
package streamtest
