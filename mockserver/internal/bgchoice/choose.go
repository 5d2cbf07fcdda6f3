// Package bgchoice opens the background-removal engine a mock's options
// ask for (mockserver.BGEngine): the CPU engine, or the process's shared
// GPU engine of a build with the tag cuda.
package bgchoice

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// Engine is an opened engine: the remover (nil: the service's CPU
// default), what releases it, and what runs.
type Engine struct {
	Remover matting.Remover
	close   func() error
	Name    mockserver.BGEngine

	once     sync.Once
	closeErr error
}

// openBGEngine opens the engine chosen by choice ("" is mockserver.BGEngineCPU) and
// logs which one runs (and, for auto, why not the GPU).
func openBGEngine(choice mockserver.BGEngine, log *slog.Logger) (*Engine, error) {
	switch choice {
	case "", mockserver.BGEngineCPU:
		log.Info("background-removal engine", "engine", mockserver.BGEngineCPU)
		return &Engine{Name: mockserver.BGEngineCPU}, nil
	case mockserver.BGEngineCUDA, mockserver.BGEngineAuto:
	default:
		return nil, fmt.Errorf("%w: unknown background-removal engine %q (want cpu, cuda or auto)", mockserver.ErrInvalidOptions, string(choice))
	}
	r, closeFn, device, err := openGPUEngine()
	if err != nil {
		if choice == mockserver.BGEngineCUDA {
			return nil, &mockserver.EngineUnavailableError{Engine: mockserver.BGEngineCUDA, Reason: err}
		}
		log.Info("background-removal engine", "engine", mockserver.BGEngineCPU, "requested", mockserver.BGEngineAuto, "gpu_unavailable", err.Error())
		return &Engine{Name: mockserver.BGEngineCPU}, nil
	}
	log.Info("background-removal engine", "engine", mockserver.BGEngineCUDA, "requested", choice, "device", device)
	return &Engine{Remover: r, close: closeFn, Name: mockserver.BGEngineCUDA}, nil
}

// Choose opens the engine a mock's options ask for: the tests'
// remover when set (named "custom"), else choice via openBGEngine, logging
// to log (nil discards).
func Choose(testRemover matting.Remover, choice mockserver.BGEngine, log *slog.Logger) (*Engine, error) {
	if testRemover != nil {
		return &Engine{Remover: testRemover, Name: "custom"}, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return openBGEngine(choice, log)
}

// Release closes the engine once; later calls return the first's result.
// A nil engine (none opened) has nothing to release.
func (e *Engine) Release() error {
	if e == nil {
		return nil
	}
	e.once.Do(func() {
		if e.close != nil {
			e.closeErr = e.close()
		}
	})
	return e.closeErr
}
