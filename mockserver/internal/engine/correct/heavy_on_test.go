//go:build heavy

package correct

// heavyTests: see heavy_off_test.go.
const heavyTests = true
