//go:build heavy

package imageio

// heavyTests: see heavy_off_test.go.
const heavyTests = true
