package main

import (
	"flag"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
)

// setupBG registers the background-removal container's own flag and
// returns its constructor. Its licence key is the shared -license-key, its
// engine the shared -bg-engine.
func setupBG(fs *flag.FlagSet) func(env) (*served, error) {
	delay := fs.Duration("bg-processing-delay", 0,
		"how long each background-removal job stays processing after its engine returned (on the -time-scale clock)")
	return func(e env) (*served, error) {
		b, err := bgmock.New(bgmock.Options{
			LicenseKey:      e.licenseKey,
			Clock:           e.clock,
			ProcessingDelay: *delay,
			DataDir:         e.dataDir,
			MemoryBudget:    e.memoryBudget,
			Faults:          e.faults,
			RateLimit:       e.rateLimit,
			Logger:          e.log.With("backend", "bg"),
			Engine:          e.bgEngine,
		})
		if err != nil {
			return nil, err
		}
		return &served{handler: b, close: b.Close}, nil
	}
}

// defaultBGEngine is -bg-engine's default: auto in a build with the GPU
// engine, cpu otherwise.
func defaultBGEngine() string {
	if mockserver.CUDAEngineCompiled {
		return string(mockserver.BGEngineAuto)
	}
	return string(mockserver.BGEngineCPU)
}
