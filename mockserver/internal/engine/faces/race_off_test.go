//go:build !race

package faces

// raceEnabled reports a build with the race detector, which makes
// detection about twenty times slower. Under it the tests whose subject
// is geometry (origins, sub-images, scaling back) are skipped, their
// assertions held without it (go test, .ci/run's plain step); the
// detector's goroutines run in the concurrency and determinism tests.
const raceEnabled = false
