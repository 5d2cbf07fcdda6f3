//go:build !heavy

package imageio

// heavyTests reports the build tag heavy (.ci/run's heavy step, without
// the race detector), which adds the cases whose subject is size: the
// 4000×1300 JPEG of TestJPEGStripsDecodeLikeOneStream. A plain go test
// keeps their smaller cases.
const heavyTests = false
