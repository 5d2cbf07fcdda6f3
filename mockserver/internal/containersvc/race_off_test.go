//go:build !race

package containersvc

// raceEnabled reports a build with the race detector, which makes the
// engine about twenty times slower.
const raceEnabled = false
