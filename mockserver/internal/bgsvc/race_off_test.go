//go:build !race

package bgsvc

// raceEnabled reports a build with the race detector, about twenty times
// slower on image work: TestOverTheMemoryBudgetIsInvalidFile then makes
// its 1-bit giant with zero rows (the same header) instead of stripes.
const raceEnabled = false
