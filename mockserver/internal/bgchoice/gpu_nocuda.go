//go:build !cuda || !linux

package bgchoice

import (
	"errors"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// errNoCUDABuild is why this build has no GPU engine.
var errNoCUDABuild = errors.New("this build has only the CPU engine: rebuild with -tags cuda (Linux) for the GPU engine")

func openGPUEngine() (matting.Remover, func() error, string, error) {
	return nil, nil, "", errNoCUDABuild
}
