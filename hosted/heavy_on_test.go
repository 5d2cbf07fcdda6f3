//go:build heavy

package hosted_test

// heavyTests: see heavy_off_test.go.
const heavyTests = true
