//go:build !heavy

package matting

// heavyTests reports the build tag heavy (.ci/run's heavy step), which
// adds the larger golden cases (golden_heavy_test.go) and runs every
// stage test on every golden case (stageGolden).
const heavyTests = false
