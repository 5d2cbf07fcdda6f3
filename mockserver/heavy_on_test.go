//go:build heavy

package mockserver_test

// heavyTests: see heavy_off_test.go.
const heavyTests = true
