// Package fakeclock is the module's one manually driven clock for tests
// and benchmarks. The mock servers' clock.Fake and the SDK's
// poll.FakeClock are thin views of it; it is internal so that the clients
// need not import the mock servers to get one.
//
// Time moves only when Advance (or AdvanceTo, AdvanceToNext) is called.
// Advance runs every timer that falls due, in deadline order (ties in
// scheduling order), on the caller's goroutine, with Now reading the
// timer's deadline while it runs; a timer that a callback schedules within
// the window runs in the same Advance. When Advance returns, every due
// callback has returned, which makes tests deterministic. Changed and
// BlockUntil let a test wait until the code under test, running in
// another goroutine, has scheduled a timer.
package fakeclock
