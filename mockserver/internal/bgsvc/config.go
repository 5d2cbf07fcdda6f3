package bgsvc

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/mockserver"
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

// Config configures the background-removal container mock: it is
// bgmock.Options. The zero value is usable with bgmock.New, which fills
// LicenseKey and MemoryBudget, resolves Engine, creates the working
// directory in DataDir and applies Activated, Faults and RateLimit.
type Config struct {
	// LicenseKey is the one valid licence key (GET /Authorize/{key});
	// empty means bgmock.DefaultLicenseKey. It never appears in the mock's
	// answers or logs.
	LicenseKey string
	// Activated starts the container as if /Authorize had been called
	// with LicenseKey. The real container starts unactivated: image
	// endpoints answer 403 not_activated until then.
	Activated bool
	// Organization is the "licensed org"; empty means "PFC Mock
	// Organization".
	Organization string
	// LicenseExpiry is when the licence ends (on Clock); zero means the
	// end of the month a year after the clock's time at creation.
	LicenseExpiry time.Time
	// ModelVersion is what /Status reports; empty means "372.0", the
	// documented release label.
	ModelVersion string
	// Clock drives the processing delay, processing_time and the
	// licence's expiry; nil means clock.Real(). Use clock.NewFake in
	// tests.
	Clock clock.Clock
	// ProcessingDelay keeps each job processing at least this long on
	// Clock after its engine returned (default 0), so that tests can hold
	// jobs in processing. It does not hold a worker, but it holds the job's
	// place in MemoryBudget, as a slower engine would.
	ProcessingDelay time.Duration
	// Engine picks the background-removal engine: mockserver.BGEngineCPU (empty
	// means it), mockserver.BGEngineCUDA or mockserver.BGEngineAuto. Asking for cuda where it
	// cannot run (a build without the cuda tag, no driver or device) fails
	// New with an *mockserver.EngineUnavailableError; auto falls back to
	// the CPU. The log says which engine runs.
	Engine mockserver.BGEngine
	// Workers bounds the engines running at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images processed at once, in
	// bytes: what decoding and removing each one's background hold (a
	// 400×300 JPEG about 70 MB; see "Memory" in docs/mockserver.md); 0
	// means mockserver.DefaultMemoryBudget. Jobs that would exceed it stay queued, in
	// order; an image larger than the whole budget is refused as an
	// invalid file, with a message naming this option.
	MemoryBudget int64
	// MaxFileBytes bounds an uploaded file (413 beyond); 0 means 50 MB.
	MaxFileBytes int64
	// DataDir is where a private working directory is created (and
	// removed by Close); empty means the system temporary directory.
	DataDir string
	// Logger receives structured logs (licence keys redacted); nil
	// discards them.
	Logger *slog.Logger
	// Faults injects failures into the answers (see
	// mockserver.ParseFaults and the mockserver package documentation's
	// "Fault injection"); nil injects none.
	Faults *mockserver.FaultSpec
	// RateLimit, if positive, bounds the requests of each client address
	// to this many per second on Clock (a bucket of one second's worth):
	// above it the answer is 429 rate_limited with Retry-After, in whole
	// seconds. 0: no limit.
	RateLimit float64
}

// Format prints the config as fmt prints a struct, named bgmock.Options
// (its public name) for %#v, with LicenseKey REDACTED.
func (c Config) Format(f fmt.State, verb rune) {
	type options Config // without this method
	c.LicenseKey = redact.Mask(c.LicenseKey)
	redact.FormatCopy(f, verb, "bgmock.Options", "bgsvc.options", options(c))
}

// LogValue makes slog log the config as Format's %+v prints it.
func (c Config) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", c)) }

// Deps are what the mock's own packages give New besides the Config.
type Deps struct {
	// WorkDir is the directory for input and result files. Required; the
	// Service removes nothing in it on Close (the caller owns it).
	WorkDir string
	// BudgetName names what sets MemoryBudget (an option, a flag) in the
	// refusal of an image over the budget, as what to raise; empty: "the
	// memory budget".
	BudgetName string
	// MaxOutputLongSide caps the result's long side; 0 means
	// matting.MaxOutputLongSide.
	MaxOutputLongSide int
	// Limits are the input pixel limits; the zero value means
	// DefaultLimits.
	Limits imageio.Limits
	// Remover removes backgrounds; nil means the CPU reference engine
	// (matting.NewCPU). The GPU engine plugs in here.
	Remover matting.Remover
}

// settings are what a Service runs on: the Config with the Deps.
// Config.MemoryBudget 0 is no bound beyond Workers here (bgmock.New puts
// the default in), and Activated, Engine, Faults, RateLimit and DataDir
// are bgmock.New's.
type settings struct {
	Config
	Deps
}

// ErrInvalidConfig is wrapped by every configuration error of New.
var ErrInvalidConfig = errors.New("bgsvc: invalid config")

func (c *settings) normalize() error {
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
	if c.WorkDir == "" {
		problems = append(problems, "WorkDir: required")
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
