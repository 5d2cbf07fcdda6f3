package containersvc

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
)

// Defaults of the container's environment variables (the correction container
// documentation's table).
const (
	DefaultSiteURL  = "http://localhost"
	DefaultLogLevel = "info"
	DefaultImageTTL = 60 * time.Minute
	DefaultAVX      = "auto"
	DefaultSkipMode = "clipart"
	// SweepInterval is how often the TTL sweep runs (documented: every 10
	// minutes).
	SweepInterval = 10 * time.Minute
	// DefaultMaxUploadBytes bounds a PUT /pfc body. The API documentation
	// documents no maximum upload size; the mock takes the hosted API's
	// largest image bound (50 MB), which also bounds the engine's memory.
	DefaultMaxUploadBytes = 50_000_000
)

// Environment variable names, as the container reads them.
const (
	EnvSiteURL               = "PFC_SITE_URL"
	EnvLogLevel              = "PFC_LOG_LEVEL"
	EnvImageCacheTTL         = "PFC_IMG_CACHE_TTL"
	EnvAVX                   = "PFC_AVX"
	EnvUseFastFAE            = "PFC_USE_FASTFAE"
	EnvSkipMode              = "PFC_SKIP_MODE"
	EnvSkipEXIFSoftware      = "PFC_SKIP_EXIF_SOFTWARE"
	EnvPreserveInputFileName = "PFC_PRESERVE_INPUT_FILENAME"
	EnvEnableComposite       = "PFC_ENABLE_COMPOSITE"
	EnvUseAIServer           = "PFC_USE_AI_SERVER"
)

// EnvNames lists every PFC_* variable in the API documentation's table order.
func EnvNames() []string {
	return []string{EnvSiteURL, EnvLogLevel, EnvImageCacheTTL, EnvAVX, EnvUseFastFAE, EnvSkipMode,
		EnvSkipEXIFSoftware, EnvPreserveInputFileName, EnvEnableComposite, EnvUseAIServer}
}

// Config configures the correction container mock: it is
// pfcmock.Options. The PFC_* fields are the container's environment
// variables (ConfigFromEnv reads them), with the same defaults and
// effects; the rest are the mock's own. The zero value is usable with
// pfcmock.New: a private licensed mount tree, the real clock, logs
// discarded.
type Config struct {
	// Root is the directory holding the mount points (sdk_license,
	// presets, addons, input, output, scene); missing ones are created.
	// pfcmock.New takes empty as a private temporary tree, removed by
	// Close, and puts a valid mock licence in sdk_license of a tree it
	// creates (Root empty or not existing yet) unless Unlicensed is set.
	// New requires it.
	Root string
	// Unlicensed leaves a tree pfcmock.New creates without a licence:
	// every "corrected" file is then a byte copy of its input, as the
	// container does when license validation fails.
	Unlicensed bool

	// SiteURL is PFC_SITE_URL, the base of corrected_url: an absolute
	// http(s) URL without query; empty means http://localhost, like the
	// container.
	SiteURL string
	// LogLevel is PFC_LOG_LEVEL: debug, info, warning or error (any case);
	// empty means info, and any other value logs a warning
	// (unknownLogLevelMessage) and uses info, as the API documentation says.
	LogLevel string
	// ImageTTL is PFC_IMG_CACHE_TTL: how long uploads, inputs and outputs
	// are kept (swept every 10 minutes on Clock); 0 means 60 minutes.
	ImageTTL time.Duration
	// AVX is PFC_AVX (on, off, auto; empty means auto); reported only.
	AVX string
	// UseFastFAE is PFC_USE_FASTFAE; reported only.
	UseFastFAE bool
	// SkipMode is PFC_SKIP_MODE, the default of skip: clipart (empty),
	// legacy or none.
	SkipMode string
	// SkipEXIFSoftware is PFC_SKIP_EXIF_SOFTWARE, the default of
	// skip-exif-software: images whose EXIF Software tag names one of
	// these (case-insensitive substring) are not corrected.
	SkipEXIFSoftware []string
	// PreserveInputFileName is PFC_PRESERVE_INPUT_FILENAME, the default of
	// preserveInputFileName (direct file mode): the output keeps the
	// input's file name.
	PreserveInputFileName bool
	// EnableComposite is PFC_ENABLE_COMPOSITE; nil means true. Reported
	// only (the mock has no composite detector).
	EnableComposite *bool
	// UseAIServer is PFC_USE_AI_SERVER; nil means true. Reported only.
	UseAIServer *bool

	// LogWriter receives the container's JSON log lines (the real one
	// writes them to stderr); nil discards them.
	LogWriter io.Writer
	// Clock drives the TTL sweep and licence expiry; nil means
	// clock.Real(). Use clock.NewFake in tests.
	Clock clock.Clock
	// MaxUploadBytes bounds an upload (413 above); 0 means 50 MB.
	MaxUploadBytes int64
	// Workers bounds the corrections run at once; 0 means 4.
	Workers int
	// MemoryBudget bounds the memory of the images corrected at once, in
	// bytes: what decoding and correcting each one hold (about 6 bytes a
	// pixel of an ordinary 8-bit image, plus 17 MiB; see "Memory" in
	// docs/mockserver.md); 0 means mockserver.DefaultMemoryBudget. A
	// correction that would exceed it waits, first come first served; an
	// image larger than the whole budget is refused as the engine refuses
	// one over its limits, with a message naming this option.
	MemoryBudget int64
	// Faults injects failures into the answers (see
	// mockserver.ParseFaults); nil injects none. Each injected fault is
	// one line of the JSON log (LogWriter) at warning, message id
	// faultInjectedMessage, with the route, the request's sequence number,
	// the kind and the method (never the path or query). pfcmock.New
	// applies it.
	Faults *mockserver.FaultSpec
	// RateLimit, if positive, bounds the requests of each client address
	// to this many per second on Clock (a bucket of one second's worth):
	// above it the answer is 429 rate_limited with Retry-After, in whole
	// seconds. 0: no limit. pfcmock.New applies it.
	RateLimit float64
}

// Format prints the config as fmt prints a struct, named pfcmock.Options
// (its public name) for %#v.
func (c Config) Format(f fmt.State, verb rune) {
	type options Config // without this method
	redact.FormatCopy(f, verb, "pfcmock.Options", "containersvc.options", options(c))
}

// Deps are what the mock's own packages give New besides the Config.
type Deps struct {
	// Engine corrects the images; nil means a new reference engine.
	Engine *engine.Engine
	// BudgetName names what sets MemoryBudget (an option, a flag) in the
	// refusal of an image over the budget, as what to raise; empty: "the
	// memory budget".
	BudgetName string
}

// ErrInvalidConfig is wrapped by every configuration error of New and
// ConfigFromEnv.
var ErrInvalidConfig = errors.New("containersvc: invalid config")

// ConfigFromEnv reads the PFC_* variables through getenv (os.Getenv for the
// standalone binary). Root and the mock's own fields are left for the
// caller. Unset or empty variables take the documented defaults; PFC_LOG_LEVEL
// is kept as given (New applies the documented fallback); any other malformed
// value is an error naming the variable, so a typo does not go unnoticed.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var problems []string
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	boolean := func(name string, def bool) bool {
		v := get(name)
		if v == "" {
			return def
		}
		b, ok := parseBool(v)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: must be true or false, got %q", name, v))
			return def
		}
		return b
	}
	c.SiteURL = get(EnvSiteURL)
	c.LogLevel = get(EnvLogLevel)
	if v := get(EnvImageCacheTTL); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			problems = append(problems, fmt.Sprintf("%s: must be a positive number of minutes, got %q", EnvImageCacheTTL, v))
		} else {
			c.ImageTTL = time.Duration(n) * time.Minute
		}
	}
	c.AVX = strings.ToLower(get(EnvAVX))
	c.UseFastFAE = boolean(EnvUseFastFAE, false)
	c.SkipMode = strings.ToLower(get(EnvSkipMode))
	c.SkipEXIFSoftware = splitList(get(EnvSkipEXIFSoftware))
	c.PreserveInputFileName = boolean(EnvPreserveInputFileName, false)
	comp := boolean(EnvEnableComposite, true)
	c.EnableComposite = &comp
	ai := boolean(EnvUseAIServer, true)
	c.UseAIServer = &ai
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	}
	if err := c.check(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// parseBool accepts true and false, case insensitive (environment values
// are written by hand; query values are stricter).
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// check reports the problems of the PFC_* fields (without Root), filling
// defaults.
func (c *Config) check() error {
	var problems []string
	if c.SiteURL == "" {
		c.SiteURL = DefaultSiteURL
	}
	u, err := url.Parse(c.SiteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		problems = append(problems, fmt.Sprintf("SiteURL (%s): must be an absolute http(s) URL without query, got %q", EnvSiteURL, c.SiteURL))
	}
	c.SiteURL = strings.TrimRight(c.SiteURL, "/")
	if c.ImageTTL == 0 {
		c.ImageTTL = DefaultImageTTL
	}
	if c.ImageTTL < time.Minute {
		problems = append(problems, fmt.Sprintf("ImageTTL (%s): must be at least one minute, got %v", EnvImageCacheTTL, c.ImageTTL))
	}
	if c.AVX == "" {
		c.AVX = DefaultAVX
	}
	if c.AVX != "on" && c.AVX != "off" && c.AVX != "auto" {
		problems = append(problems, fmt.Sprintf("AVX (%s): must be on, off or auto, got %q", EnvAVX, c.AVX))
	}
	if c.SkipMode == "" {
		c.SkipMode = DefaultSkipMode
	}
	if !validSkip(c.SkipMode) {
		problems = append(problems, fmt.Sprintf("SkipMode (%s): must be clipart, legacy or none, got %q", EnvSkipMode, c.SkipMode))
	}
	for _, s := range c.SkipEXIFSoftware {
		if strings.TrimSpace(s) == "" || strings.Contains(s, ",") {
			problems = append(problems, fmt.Sprintf("SkipEXIFSoftware (%s): names must be non-empty and contain no comma", EnvSkipEXIFSoftware))
			break
		}
	}
	if c.EnableComposite == nil {
		t := true
		c.EnableComposite = &t
	}
	if c.UseAIServer == nil {
		t := true
		c.UseAIServer = &t
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	}
	return nil
}

// normalize checks the whole config and fills every default.
// own copies what c shares with its caller (a slice, pointers), so that a
// caller that reuses or edits its Options after New cannot change the
// running mock's defaults.
func (c *Config) own() {
	c.SkipEXIFSoftware = slices.Clone(c.SkipEXIFSoftware)
	for _, p := range []**bool{&c.EnableComposite, &c.UseAIServer} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
}

func (c *Config) normalize() error {
	var problems []string
	if err := c.check(); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), ErrInvalidConfig.Error()+": "))
	}
	if c.Root == "" {
		problems = append(problems, "Root: required")
	}
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.LogWriter == nil {
		c.LogWriter = io.Discard
	}
	if c.MaxUploadBytes == 0 {
		c.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if c.MaxUploadBytes < 0 {
		problems = append(problems, fmt.Sprintf("MaxUploadBytes: must not be negative, got %d", c.MaxUploadBytes))
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.Workers < 0 {
		problems = append(problems, fmt.Sprintf("Workers: must not be negative, got %d", c.Workers))
	}
	if c.MemoryBudget == 0 {
		c.MemoryBudget = mockserver.DefaultMemoryBudget
	}
	if c.MemoryBudget < 0 {
		problems = append(problems, fmt.Sprintf("MemoryBudget: must not be negative, got %d", c.MemoryBudget))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	}
	return nil
}

func validSkip(v string) bool { return v == "clipart" || v == "legacy" || v == "none" }

// parseLevel maps PFC_LOG_LEVEL to a level; an unknown value gives info and
// is returned as bad.
func parseLevel(v string) (level slog.Level, bad string) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "debug":
		return slog.LevelDebug, ""
	case "", "info":
		return slog.LevelInfo, ""
	case "warning":
		return slog.LevelWarn, ""
	case "error":
		return slog.LevelError, ""
	}
	return slog.LevelInfo, v
}
