package mockserver

import (
	"fmt"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
)

// Engine is the reference image engine the mocks correct images with
// (decode, face detection, correction, resize, background removal, on the
// CPU). A mock started without a processor creates its own; create one
// with NewEngine to share it (and its models) between several mocks. It
// is safe for concurrent use.
type Engine struct {
	e *engine.Engine
}

// NewEngine returns a reference engine.
func NewEngine() (*Engine, error) {
	e, err := engine.New(engine.Options{})
	if err != nil {
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	return &Engine{e: e}, nil
}
