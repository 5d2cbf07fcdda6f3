// Package activity tracks the background work of a mock server: goroutines
// it started, and clock timers it scheduled. It gives the server two
// things: WaitIdle, which returns once nothing is running (every piece of
// work has finished or is parked on a clock timer), so tests with a fake
// clock can synchronise without sleeping; and Close, which stops every
// pending timer and waits for running work, so nothing leaks.
package activity
