//go:build !heavy

package hosted_test

// heavyTests adds the tests whose subject is scale (a bulk run over 1,000
// images, a 1 GiB upload), which .ci/run's heavy step runs with -tags
// heavy, without the race detector; a plain go test keeps their small
// cases.
const heavyTests = false
