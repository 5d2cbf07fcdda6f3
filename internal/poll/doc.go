// Package poll holds the one backoff computation and the one wait loop of
// the SDK. The transport's retries, hosted.Client.Wait and the
// background-removal container's CheckImage loop all use ComputeDelay; the
// two wait loops use Until.
//
// # Delays
//
// ComputeDelay is exponential with equal jitter, in the spirit of
// smithy-go's waiter ComputeDelay: step n waits a random duration between
// d/2 and d, where d = minDelay·2^n capped at maxDelay, so pollers spread
// out without hammering the service early. The delay is trimmed to the
// time remaining before a deadline, so a wait never overruns it.
//
// # Waiting
//
// Until calls fetch until it reports done, sleeping ComputeDelay between
// calls. Options.MaxWait bounds the whole wait, including a fetch already in
// flight: fetch gets a context that ends when MaxWait runs out, so a status
// answer whose body stalls cannot hold the wait past MaxWait. Running out of
// MaxWait returns a *TimeoutError (errors.Is(err, ErrTimeout)) with the last
// value fetched; each client wraps it in its own typed error. Cancelling the
// caller's context, or reaching its deadline, returns the context's error at
// once.
//
// # Time in tests
//
// Options.Clock replaces the real clock for the delays and MaxWait; the
// clients never set it and their public options cannot. FakeClock is a
// clock whose time moves only when told, so a benchmark or test can run
// a 60 s wait in microseconds (hosted's BenchmarkWaitDetection measures
// the hosted waiter that way). The caller's context deadline stays in
// real time.
package poll
