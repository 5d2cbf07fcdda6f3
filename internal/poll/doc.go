// Package poll holds the one backoff computation and the one wait loop of
// the SDK. The transport's retries (ComputeDelay), hosted.Client.Wait and
// the background-removal container's CheckImage loop (Until) all draw
// their delays from it.
//
// # Delays
//
// Delays are exponential and jittered, in the spirit of smithy-go's waiter
// ComputeDelay: step n waits a random duration of at most d =
// minDelay·2^n capped at maxDelay, trimmed to the time remaining before a
// deadline, so a wait never overruns it. Retries use equal jitter (between
// d/2 and d): after an outage every client retries at once, and a wide
// spread keeps them from hammering the service in step. A wait loop polls
// one job, already decorrelated from other waiters by when it started, so
// it draws from 0.8·d to d: enough to avoid lockstep, and narrow enough
// that a wait of D takes no more than about 1 + log2(D/minDelay) +
// D/maxDelay calls (hosted's BenchmarkWaitDetection measures it).
//
// # Waiting
//
// Until calls fetch until it reports done, sleeping between calls. Options.MaxWait bounds the whole wait, including a fetch already in
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
