//go:build !race

package resize

// raceEnabled reports a build with the race detector, which makes
// resampling about twenty times slower. Under it the tests whose subject
// is pixel values are skipped, their assertions held without it (go
// test); the resampler's goroutines run in TestResizeSameCoresSameBytes.
const raceEnabled = false
