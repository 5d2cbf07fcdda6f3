package mockserver

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// BGEngine names the engine that removes backgrounds in a BGContainer
// (BGContainerOptions.Engine) and in the hosted mock's reference engine
// (HostedOptions.BGEngine).
type BGEngine string

const (
	// BGEngineCPU is the reference engine: pure Go, deterministic, on
	// every build.
	BGEngineCPU BGEngine = "cpu"
	// BGEngineCUDA is the GPU engine: only in a build with the cuda tag
	// (Linux), on a machine whose CUDA driver (libcuda.so.1) loads and
	// reports a device. Its results match the CPU engine's within 2/255 of
	// alpha per pixel. The mocks of a process that use it share one
	// engine (one device context and its memory pools), closed when the
	// last of them closes.
	BGEngineCUDA BGEngine = "cuda"
	// BGEngineAuto is BGEngineCUDA where it can run, else BGEngineCPU,
	// logging once why the GPU is not used.
	BGEngineAuto BGEngine = "auto"
)

// ErrEngineUnavailable is matched (errors.Is) by the error of
// NewBGContainer (NewHosted) when BGContainerOptions.Engine
// (HostedOptions.BGEngine) asks for an engine this build or machine cannot
// run; the error is an *EngineUnavailableError.
var ErrEngineUnavailable = errors.New("mockserver: background-removal engine unavailable")

// EngineUnavailableError says why the requested background-removal engine
// cannot run. It wraps ErrEngineUnavailable and the reason.
type EngineUnavailableError struct {
	// Engine is the engine asked for.
	Engine BGEngine
	// Reason is why it cannot run (a build without the cuda tag, no
	// driver, no device, a driver error).
	Reason error
}

// Error returns "mockserver: background-removal engine unavailable: cuda: <reason>".
func (e *EngineUnavailableError) Error() string {
	return fmt.Sprintf("%v: %s: %v", ErrEngineUnavailable, e.Engine, e.Reason)
}

// Unwrap returns ErrEngineUnavailable and the reason.
func (e *EngineUnavailableError) Unwrap() []error { return []error{ErrEngineUnavailable, e.Reason} }

// bgEngine is an opened engine: the remover (nil: the service's CPU
// default), what releases it, and what runs.
type bgEngine struct {
	remover matting.Remover
	close   func() error
	name    BGEngine

	once     sync.Once
	closeErr error
}

// openBGEngine opens the engine chosen by choice ("" is BGEngineCPU) and
// logs which one runs (and, for auto, why not the GPU).
func openBGEngine(choice BGEngine, log *slog.Logger) (*bgEngine, error) {
	switch choice {
	case "", BGEngineCPU:
		log.Info("background-removal engine", "engine", BGEngineCPU)
		return &bgEngine{name: BGEngineCPU}, nil
	case BGEngineCUDA, BGEngineAuto:
	default:
		return nil, fmt.Errorf("%w: unknown background-removal engine %q (want cpu, cuda or auto)", ErrInvalidOptions, string(choice))
	}
	r, closeFn, device, err := openGPUEngine()
	if err != nil {
		if choice == BGEngineCUDA {
			return nil, &EngineUnavailableError{Engine: BGEngineCUDA, Reason: err}
		}
		log.Info("background-removal engine", "engine", BGEngineCPU, "requested", BGEngineAuto, "gpu_unavailable", err.Error())
		return &bgEngine{name: BGEngineCPU}, nil
	}
	log.Info("background-removal engine", "engine", BGEngineCUDA, "requested", choice, "device", device)
	return &bgEngine{remover: r, close: closeFn, name: BGEngineCUDA}, nil
}

// chooseBGEngine opens the engine a mock's options ask for: the tests'
// remover when set (named "custom"), else choice via openBGEngine, logging
// to log (nil discards).
func chooseBGEngine(testRemover matting.Remover, choice BGEngine, log *slog.Logger) (*bgEngine, error) {
	if testRemover != nil {
		return &bgEngine{remover: testRemover, name: "custom"}, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return openBGEngine(choice, log)
}

// release closes the engine once; later calls return the first's result.
// A nil engine (none opened) has nothing to release.
func (e *bgEngine) release() error {
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
