//go:build cuda && linux

package mockserver

// CUDAEngineCompiled reports whether this build contains the GPU
// background-removal engine (build tag cuda, on Linux).
const CUDAEngineCompiled = true
