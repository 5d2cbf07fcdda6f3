//go:build !race

package containersvc

// raceEnabled reports a build with the race detector, about twenty times
// slower on image work: the budget tests then take inputs that are cheaper
// to make and correct, through the same admission paths (budget_test.go).
const raceEnabled = false
