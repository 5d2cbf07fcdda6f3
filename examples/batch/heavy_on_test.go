//go:build heavy

package main

// heavyTests: see heavy_off_test.go.
const heavyTests = true
