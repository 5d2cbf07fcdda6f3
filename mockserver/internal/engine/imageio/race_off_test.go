//go:build !race

package imageio

// raceEnabled reports a build with the race detector, which makes image
// work about twenty times slower. Under it the tests whose subject is
// pixels, sizes or memory run on smaller inputs that still take several
// strips and parts (the encoders' goroutines), or are skipped where their
// assertions hold without it (go test, and .ci/run's heavy step).
const raceEnabled = false
