//go:build !heavy

package correct

// heavyTests reports the build tag heavy (.ci/run's heavy step, without
// the race detector), which adds the cases whose subject is volume: the
// further seeds of TestApply_BalancedImageChangesLittle. A plain go test
// keeps one of each.
const heavyTests = false
