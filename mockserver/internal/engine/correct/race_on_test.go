//go:build race

package correct

// raceEnabled: see race_off_test.go.
const raceEnabled = true
