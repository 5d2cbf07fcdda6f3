//go:build !heavy

package bgcontainer_test

// heavyTests is set by the build tag heavy, which puts this package in
// .ci/run's heavy step (without the race detector): there, and in a plain
// go test, TestBulkFSHeap holds its heap bound, which the race step skips.
const heavyTests = false
