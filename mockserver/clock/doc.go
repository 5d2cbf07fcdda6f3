// Package clock is the time source of the mock servers: every duration the
// mock simulates (processing delay, retention, upload URL expiry, webhook
// retries and their per-attempt timeout) is measured on a Clock, so tests
// can replace real time with a Fake and move it forward instantly.
//
// Three implementations:
//
//   - Real: the wall clock (time.Now, time.AfterFunc).
//   - Scaled: wall-clock readings, but every duration handed to AfterFunc
//     is multiplied by a factor. The binary's -time-scale flag uses it: with
//     0.001 a 48-minute webhook retry schedule runs in 2.88 s. Now is not
//     scaled, so timestamps (job records, webhook-timestamp) stay close to
//     the receiver's clock and pass its tolerance check. Measure an age
//     to compare with a scaled duration with Since, not Now().Sub. The
//     webhook attempt timeout, which bounds a real network exchange, is
//     not scaled: on a Scaled clock it runs on the wall clock.
//   - Fake: a manual clock for tests. Time moves only when Advance is
//     called; Advance runs every timer that falls due, in deadline order
//     (ties in creation order), on the caller's goroutine, with Now reading
//     the timer's deadline while it runs. When Advance returns, every due
//     callback has returned, which makes tests deterministic. BlockUntil
//     waits until the code under test has scheduled a number of timers.
package clock
