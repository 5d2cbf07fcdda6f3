//go:build race

package imageio

// raceEnabled: see race_off_test.go.
const raceEnabled = true
