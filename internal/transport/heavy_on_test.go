//go:build heavy

package transport

// heavyTests: see heavy_off_test.go.
const heavyTests = true
