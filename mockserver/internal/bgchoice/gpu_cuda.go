//go:build cuda && linux

package bgchoice

import (
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/gpu"
)

// gpuEngine is the process's GPU engine, shared by every mock that asks
// for it (see sharedOpener).
var gpuEngine = sharedOpener[*gpu.Engine]{
	open:  func() (*gpu.Engine, error) { return gpu.New(gpu.Options{}) },
	close: (*gpu.Engine).Close,
}

// openGPUEngine takes a hold on the process's GPU engine (the first
// device), opening it if no mock holds it.
func openGPUEngine() (matting.Remover, func() error, string, error) {
	e, release, err := gpuEngine.acquire()
	if err != nil {
		return nil, nil, "", err
	}
	return e, release, e.Device(), nil
}
