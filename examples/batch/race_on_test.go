//go:build race

package main

// raceEnabled reports a build with the race detector, under which the
// mocks' image work is about twenty times slower.
const raceEnabled = true
