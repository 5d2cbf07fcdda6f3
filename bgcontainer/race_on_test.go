//go:build race

package bgcontainer_test

// raceEnabled reports a build with the race detector, about twenty times
// slower on byte loops: TestBulkFSHeap, a test of the heap and not of
// goroutines, then runs only without it.
const raceEnabled = true
