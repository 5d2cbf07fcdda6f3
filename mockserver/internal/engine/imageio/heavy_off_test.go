//go:build !heavy

package imageio

// heavyTests reports the build tag heavy (.ci/run's heavy step, without
// the race detector), which adds the cases whose subject is size: the
// larger JPEGs of TestJPEGStripsDecodeLikeOneStream (three strips at 1000
// and 333 px wide, eleven at 4000×1300). A plain go test keeps their
// smaller cases.
const heavyTests = false
