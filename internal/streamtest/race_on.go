//go:build race

package streamtest

// raceDetector reports whether the race detector is on: it makes the
// mocks' image work about twenty times slower.
const raceDetector = true
