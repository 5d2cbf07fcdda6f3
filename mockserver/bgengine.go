package mockserver

import (
	"errors"
	"fmt"
)

// BGEngine names the engine that removes backgrounds in a bgmock.Server
// (bgmock.Options.Engine) and in the hosted mock's reference engine
// (hostedmock.Options.BGEngine).
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
// bgmock.New (hostedmock.New) when bgmock.Options.Engine
// (hostedmock.Options.BGEngine) asks for an engine this build or machine cannot
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
