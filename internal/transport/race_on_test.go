//go:build race

package transport

// raceEnabled: allocation counts differ under the race detector.
const raceEnabled = true
