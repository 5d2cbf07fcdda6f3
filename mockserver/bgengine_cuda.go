//go:build cuda && linux

package mockserver

import (
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/gpu"
)

// CUDAEngineCompiled reports whether this build contains the GPU
// background-removal engine (build tag cuda, on Linux).
const CUDAEngineCompiled = true

// openGPUEngine opens the GPU engine on the first device.
func openGPUEngine() (matting.Remover, func() error, string, error) {
	e, err := gpu.New(gpu.Options{})
	if err != nil {
		return nil, nil, "", err
	}
	return e, e.Close, e.Device(), nil
}
