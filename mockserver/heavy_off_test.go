//go:build !heavy

package mockserver_test

// heavyTests reports the build tag heavy (.ci/run's heavy step), under
// which the chaos runs take their full number of jobs.
const heavyTests = false
