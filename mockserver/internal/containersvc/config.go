package containersvc

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

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

// Config configures a Service. The PFC_* fields mirror the container's
// environment variables (ConfigFromEnv reads them); the rest are the mock's
// own.
type Config struct {
	// Root holds the mount directories (sdk_license, presets, addons, input,
	// output, scene); New creates the missing ones. Required.
	Root string

	// SiteURL (PFC_SITE_URL) is the base of corrected_url; empty means
	// DefaultSiteURL. An absolute http(s) URL without query.
	SiteURL string
	// LogLevel (PFC_LOG_LEVEL) is debug, info, warning or error, case
	// insensitive; empty means info. Any other value is logged as a warning
	// (unknownLogLevelMessage) and info is used, as the API documentation says.
	LogLevel string
	// ImageTTL (PFC_IMG_CACHE_TTL, minutes) is how long uploads, files in
	// input/ and corrected files are kept; 0 means DefaultImageTTL.
	ImageTTL time.Duration
	// AVX (PFC_AVX) is on, off or auto (empty: auto). Reported by /version
	// only: the reference engine is plain Go.
	AVX string
	// UseFastFAE (PFC_USE_FASTFAE) is reported by /version only.
	UseFastFAE bool
	// SkipMode (PFC_SKIP_MODE) is the default of the skip parameter:
	// clipart, legacy or none; empty means clipart.
	SkipMode string
	// SkipEXIFSoftware (PFC_SKIP_EXIF_SOFTWARE) is the default of
	// skip-exif-software: images whose EXIF Software tag names one of these
	// (case-insensitive substring) are not corrected.
	SkipEXIFSoftware []string
	// PreserveInputFileName (PFC_PRESERVE_INPUT_FILENAME) is the default of
	// preserveInputFileName: the output keeps the input's file name.
	PreserveInputFileName bool
	// EnableComposite (PFC_ENABLE_COMPOSITE) is the default of
	// enableComposite; nil means true. The mock has no composite detector:
	// the value is reported (log, /version) and has no pixel effect.
	EnableComposite *bool
	// UseAIServer (PFC_USE_AI_SERVER) is reported by /version only; nil
	// means true.
	UseAIServer *bool

	// LogWriter receives the JSON log lines (the container writes them to
	// stderr); nil discards them.
	LogWriter io.Writer
	// Clock drives the TTL sweep and the licence expiry; nil means
	// clock.Real().
	Clock clock.Clock
	// Engine corrects the images; nil means a new reference engine.
	Engine *engine.Engine
	// MaxUploadBytes bounds a PUT /pfc body; 0 means DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// Workers bounds the corrections run at once (the engine holds whole
	// images in memory); 0 means 4.
	Workers int
	// MemoryBudget bounds the memory of the images corrected at once, in
	// bytes (imageio.Header.MemoryCost); 0 means none, only Workers. A
	// correction that does not fit waits its turn, first come first
	// served; an image larger than the whole budget is refused (503
	// processingPFCErrorMessage) when licensed.
	MemoryBudget int64
	// BudgetName names what sets MemoryBudget (an option, a flag) in that
	// refusal's message, as what to raise; empty: "the memory budget".
	BudgetName string

	// logLevel is the resolved level; badLogLevel the value that fell back.
	logLevel    slog.Level
	badLogLevel string
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
	c.logLevel, c.badLogLevel = parseLevel(c.LogLevel)
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
