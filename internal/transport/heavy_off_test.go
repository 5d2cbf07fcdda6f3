//go:build !heavy

package transport

// heavyTests reports the build tag heavy (.ci/run's heavy step, without
// the race detector), under which the streaming tests upload 1 GiB (see
// largeUpload); a plain go test uploads 64 MiB.
const heavyTests = false
