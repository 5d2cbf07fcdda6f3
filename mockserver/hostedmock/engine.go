package hostedmock

import (
	"fmt"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
)

// NewEngineProcessor returns the reference engine (decode, face
// detection, correction, resize, background removal, on the CPU) as a
// Processor: what New uses, with an engine of its own, when
// Options.Processor is nil. The Processor is safe for concurrent use:
// give it to several mocks to share one engine (and its models), or wrap
// it in a processor of your own.
func NewEngineProcessor() (Processor, error) {
	e, err := engine.New(engine.Options{})
	if err != nil {
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	return engineProcessor(e), nil
}
