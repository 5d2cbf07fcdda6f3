//go:build !cuda || !linux

package gpu

// openDriver reports that this build has no GPU engine.
func openDriver() (driver, error) { return nil, ErrNotCompiled }

// Compiled reports whether this build contains the GPU engine (build tag
// cuda, on Linux).
const Compiled = false
