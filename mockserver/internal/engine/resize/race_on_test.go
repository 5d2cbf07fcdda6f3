//go:build race

package resize

// raceEnabled: see race_off_test.go.
const raceEnabled = true
