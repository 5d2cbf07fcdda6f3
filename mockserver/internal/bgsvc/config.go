package bgsvc

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// Defaults of Config.
const (
	// DefaultOrganization is the licensed organisation's name.
	DefaultOrganization = "PFC Mock Organization"
	// DefaultModelVersion is the model_version /Status reports: the
	// container release label of the API documentation.
	DefaultModelVersion = "372.0"
	// DefaultMaxFileBytes bounds an uploaded file (the API documentation
	// shows no limit; the mock takes the hosted API's image upload limit).
	DefaultMaxFileBytes = 50_000_000
	// MaxPreprocessingConfigBytes bounds the preprocessing_config field.
	MaxPreprocessingConfigBytes = 64 << 10
)

// DefaultLimits are the input pixel limits: no minimum beyond one pixel,
// and below 200 megapixels so that one request cannot exhaust memory.
var DefaultLimits = imageio.Limits{PixelsBelow: 200_000_000}

// Config configures a Service.
type Config struct {
	// LicenseKey is the one valid licence key. Required. It never appears
	// in logs or answers.
	LicenseKey string
	// Organization is the "licensed org"; empty means DefaultOrganization.
	Organization string
	// LicenseExpiry is when the licence ends; zero means the end of the
	// month one year after the clock's time at New.
	LicenseExpiry time.Time
	// ModelVersion is reported by /Status; empty means DefaultModelVersion.
	ModelVersion string
	// Clock is the time source; nil means clock.Real().
	Clock clock.Clock
	// ProcessingDelay keeps each job processing this long on the clock
	// after its engine returned (0: it ends when the engine returns); the
	// worker is free again during the delay, taking the next job, but the
	// job keeps its place in the MemoryBudget, as a slower engine would.
	ProcessingDelay time.Duration
	// DataDir is the directory for input and result files. Required; the
	// Service removes nothing in it on Close (the caller owns it).
	DataDir string
	// Workers bounds the engines running at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images processed at once, in
	// bytes (imageio.Header.MemoryCost); 0 means no bound beyond Workers.
	// A job that does not fit waits, queued, in order; an image larger
	// than the whole budget is refused (404 invalid_file).
	MemoryBudget int64
	// BudgetName names what sets MemoryBudget (an option, a flag) in that
	// refusal's message, as what to raise; empty: "the memory budget".
	BudgetName string
	// MaxFileBytes bounds an uploaded file; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxOutputLongSide caps the result's long side; 0 means
	// matting.MaxOutputLongSide.
	MaxOutputLongSide int
	// Limits are the input pixel limits; the zero value means
	// DefaultLimits.
	Limits imageio.Limits
	// Remover removes backgrounds; nil means the CPU reference engine
	// (matting.NewCPU). The GPU engine plugs in here.
	Remover matting.Remover
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
}

// ErrInvalidConfig is wrapped by every configuration error of New.
var ErrInvalidConfig = errors.New("bgsvc: invalid config")

func (c *Config) normalize() error {
	var problems []string
	if c.LicenseKey == "" {
		problems = append(problems, "LicenseKey: required")
	}
	if c.Organization == "" {
		c.Organization = DefaultOrganization
	}
	if c.ModelVersion == "" {
		c.ModelVersion = DefaultModelVersion
	}
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.LicenseExpiry.IsZero() {
		t := c.Clock.Now().UTC()
		// Last second of the month, a year on.
		c.LicenseExpiry = time.Date(t.Year()+1, t.Month()+1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second)
	}
	if c.ProcessingDelay < 0 {
		problems = append(problems, fmt.Sprintf("ProcessingDelay: must not be negative, got %v", c.ProcessingDelay))
	}
	if c.DataDir == "" {
		problems = append(problems, "DataDir: required")
	}
	if c.Workers < 0 {
		problems = append(problems, fmt.Sprintf("Workers: must not be negative, got %d", c.Workers))
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.MemoryBudget < 0 {
		problems = append(problems, fmt.Sprintf("MemoryBudget: must not be negative, got %d", c.MemoryBudget))
	}
	if c.MaxFileBytes < 0 {
		problems = append(problems, fmt.Sprintf("MaxFileBytes: must not be negative, got %d", c.MaxFileBytes))
	}
	if c.MaxFileBytes == 0 {
		c.MaxFileBytes = DefaultMaxFileBytes
	}
	if c.MaxOutputLongSide < 0 {
		problems = append(problems, fmt.Sprintf("MaxOutputLongSide: must not be negative, got %d", c.MaxOutputLongSide))
	}
	if c.MaxOutputLongSide == 0 {
		c.MaxOutputLongSide = matting.MaxOutputLongSide
	}
	if c.Limits == (imageio.Limits{}) {
		c.Limits = DefaultLimits
	}
	if c.Remover == nil {
		c.Remover = matting.NewCPU()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	}
	return nil
}
