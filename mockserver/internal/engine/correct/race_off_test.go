//go:build !race

package correct

// raceEnabled reports a build with the race detector, which makes image
// work about twenty times slower. Under it the classifier tests (which
// start no goroutines) are skipped and the quality tests take one scene,
// their assertions held without it (go test, and .ci/run's heavy step).
const raceEnabled = false
