//go:build !race

package matting

// raceEnabled reports a build with the race detector, which makes the
// engine about twenty times slower: the quality tests then take a subset
// of their scenes (sceneSubset), and .ci/run runs them in full without it.
const raceEnabled = false
