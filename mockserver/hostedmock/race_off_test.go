//go:build heavy && !race

package hostedmock_test

// raceEnabled (for the heavy tests) reports a build with the race
// detector, which makes the engine about twenty times slower.
const raceEnabled = false
