//go:build !heavy

package main

// heavyTests is set by the build tag heavy, which puts this package in
// .ci/run's heavy step (without the race detector): there, and in a plain
// go test, TestShardsInProcesses runs its child processes, which the race
// step skips.
const heavyTests = false
