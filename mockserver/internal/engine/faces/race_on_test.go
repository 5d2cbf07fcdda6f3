//go:build race

package faces

// raceEnabled: see race_off_test.go.
const raceEnabled = true
