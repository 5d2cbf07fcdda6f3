//go:build heavy

package bgcontainer_test

// heavyTests: see heavy_off_test.go.
const heavyTests = true
