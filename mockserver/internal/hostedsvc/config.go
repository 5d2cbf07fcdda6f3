package hostedsvc

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/webhooksend"
)

// Defaults and bounds of Config.
const (
	DefaultRetention = 24 * time.Hour
	MinRetention     = 24 * time.Hour
	MaxRetention     = 7 * 24 * time.Hour
	// UploadRetention is how long an uploaded file stays usable as fileKey
	// or bgFileKey: the documented 7-day background cache, which is also the
	// longest retention of originals.
	UploadRetention = 7 * 24 * time.Hour
	// DefaultUploadURLTTL is how long a pre-signed upload URL is valid.
	DefaultUploadURLTTL = time.Hour

	// MaxImageBytes: image uploads must be below 50 MB. The API documents
	// no file limit for images (correction is bounded by pixels); the mock
	// takes the largest one it states for an image operation (AI
	// upscaling's), which also bounds the engine's memory: it reads the
	// whole file.
	MaxImageBytes = 50_000_000 - 1
	// MaxVideoBytes: videos are at most 5 GB.
	MaxVideoBytes = 5_000_000_000
	// MaxBackgroundRemovalBytes: background removal needs an input below
	// 30 MB; a larger input is REJECTED.
	MaxBackgroundRemovalBytes = 30_000_000 - 1
	// DefaultMemoryBudget is the memory budget of the job queue, in bytes
	// of live heap: 200 megapixels at imageio.BudgetPixelBytes, about 2 GB
	// of heap with the collector's headroom, at the ~9 bytes per pixel
	// that decoding, correcting and encoding cost (a 14000×14000 PNG, 196
	// megapixels, costs ~1.7 GB).
	DefaultMemoryBudget = mockserver.DefaultMemoryBudget
	// MaxPresetBytes bounds a preset file upload.
	MaxPresetBytes = 1 << 20
	// DefaultMaxPresets is the default of Config.MaxPresets.
	DefaultMaxPresets = 10_000
)

// Config configures the hosted API mock: it is hostedmock.Options. The
// zero value is usable with hostedmock.New, which fills APIKeys, resolves
// Processor and BGEngine, creates the working directory in DataDir and
// applies Faults and RateLimit.
type Config struct {
	// APIKeys are the valid X-API-KEY values; nil means
	// {hostedmock.DefaultAPIKey}. Each key is a separate account (its
	// uploads, jobs and presets are invisible to other keys), and the key
	// used on /pfc signs that job's webhooks.
	APIKeys []string
	// Clock drives every simulated duration (processing delay, retention,
	// pre-signed URL expiry, webhook retries); nil means clock.Real(). Use
	// clock.NewFake in tests.
	Clock clock.Clock
	// ProcessingDelay keeps each job PROCESSING at least this long on
	// Clock before it completes or fails (default 0).
	ProcessingDelay time.Duration
	// Retention is how long job records and corrected files stay after a
	// job ends: 24 h (the default) to 7 days.
	Retention time.Duration
	// UploadURLTTL is how long pre-signed upload URLs are valid on Clock
	// (default 1 h). With a clock.Scaled, whose Now is the wall clock, the
	// URL's expiry is the wall time at which the scaled TTL ends (at
	// -time-scale 0.001 a 1-hour URL expires after 3.6 s).
	UploadURLTTL time.Duration
	// WebhookClient sends webhooks; use an httptest.NewTLSServer's
	// Client() to reach a test receiver. nil builds a client trusting
	// WebhookCAs.
	WebhookClient *http.Client
	// WebhookCAs are the CAs trusted for webhook targets when
	// WebhookClient is nil; nil means the system roots.
	WebhookCAs *x509.CertPool
	// WebhookTimeout bounds each delivery attempt (default 30 s), on
	// Clock, but unscaled: on a clock.Scaled it is WebhookTimeout of wall
	// time, since it bounds a real network exchange.
	WebhookTimeout time.Duration
	// DataDir is where a private working directory is created (and removed
	// by Close); empty means the system temporary directory.
	DataDir string
	// BaseURL, if set, replaces scheme://host in the URLs the server hands
	// out (statusEndpoint, uploadUrl, correctedFile), for a server behind a
	// proxy. It must not end in /v2 (New refuses it: the server
	// serves /v2 itself; the client's base URL is BaseURL+"/v2").
	BaseURL string
	// Processor corrects images; nil means the reference engine
	// (NewEngineProcessor over a new Engine). Videos never reach it.
	Processor Processor
	// BGEngine picks the background-removal engine of the reference
	// engine that New creates when Processor is nil (jobs with a
	// background option): mockserver.BGEngineCPU (empty means it), mockserver.BGEngineCUDA or
	// mockserver.BGEngineAuto, as bgmock.Options.Engine. Asking for cuda where it
	// cannot run fails New with an *mockserver.EngineUnavailableError; setting
	// it together with Processor fails with mockserver.ErrInvalidOptions. The log
	// says which engine runs.
	BGEngine mockserver.BGEngine
	// Workers bounds the jobs processed at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images processed at once, in
	// bytes; each job counts 6 bytes a pixel of its image (twice for a
	// 16-bit PNG or a progressive JPEG), of its resized output and of its
	// background image (see "Memory" in docs/mockserver.md); 0 means
	// mockserver.DefaultMemoryBudget. Jobs that would exceed it wait in the queue
	// (PENDING), in order; an image larger than the whole budget is
	// processed alone.
	MemoryBudget int64
	// MaxPresets caps the custom presets of one account, uploaded or
	// awaiting their file; 0 means 10,000. Creating one more answers 409
	// conflict.
	MaxPresets int
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Faults injects failures into the answers (see
	// mockserver.ParseFaults and the mockserver package documentation's
	// "Fault injection"); nil injects none.
	Faults *mockserver.FaultSpec
	// RateLimit, if positive, bounds the API requests of each API key to
	// this many per second on Clock (a bucket of one second's worth):
	// above it the answer is 429 rate_limited with Retry-After, in whole
	// seconds. Pre-signed uploads and result files are not counted. 0:
	// no limit.
	RateLimit float64
}

// Format prints the config as fmt prints a struct, named
// hostedmock.Options (its public name) for %#v, with each of APIKeys
// REDACTED.
func (c Config) Format(f fmt.State, verb rune) {
	type options Config // without this method
	if c.APIKeys != nil {
		keys := make([]string, len(c.APIKeys))
		for i, k := range c.APIKeys {
			keys[i] = redact.Mask(k)
		}
		c.APIKeys = keys
	}
	redact.FormatCopy(f, verb, "hostedmock.Options", "hostedsvc.options", options(c))
}

// LogValue makes slog log the config as Format's %+v prints it.
func (c Config) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", c)) }

// Deps are what the mock's own packages give New besides the Config.
type Deps struct {
	// WorkDir is the directory for uploaded and result files. Required;
	// the Service removes nothing in it on Close (the caller owns it).
	WorkDir string
	// Processor corrects images in place of Config.Processor, which the
	// Service ignores: hostedmock.New puts that one or the reference
	// engine here. nil makes every image job FAILED with JobCodeNoEngine
	// (videos still pass through).
	Processor Processor
	// WebhookSigner signs deliveries (webhook.Sign). Required.
	WebhookSigner webhooksend.Signer
	// WebhookSchedule overrides webhooksend.DefaultSchedule.
	WebhookSchedule []time.Duration
	// SigningKey keys the pre-signed URLs; empty means a random key.
	SigningKey []byte
}

// settings are what a Service runs on: the Config with the Deps (the
// Processor of the two is Deps's: say s.cfg.Deps.Processor). APIKeys nil
// is refused here (hostedmock.New puts the default in), and BGEngine,
// Faults, RateLimit and DataDir are hostedmock.New's.
type settings struct {
	Config
	Deps
}

// ErrInvalidConfig is wrapped by every configuration error of New.
var ErrInvalidConfig = errors.New("hostedsvc: invalid config")

func (c *settings) normalize() error {
	var problems []string
	if len(c.APIKeys) == 0 {
		problems = append(problems, "APIKeys: at least one key is required")
	}
	for _, k := range c.APIKeys {
		if k == "" {
			problems = append(problems, "APIKeys: empty key")
			break
		}
	}
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.Retention == 0 {
		c.Retention = DefaultRetention
	}
	if c.Retention < MinRetention || c.Retention > MaxRetention {
		problems = append(problems, fmt.Sprintf("Retention: must be between %v and %v, got %v", MinRetention, MaxRetention, c.Retention))
	}
	if c.ProcessingDelay < 0 {
		problems = append(problems, fmt.Sprintf("ProcessingDelay: must not be negative, got %v", c.ProcessingDelay))
	}
	if c.UploadURLTTL == 0 {
		c.UploadURLTTL = DefaultUploadURLTTL
	}
	if c.UploadURLTTL < time.Second {
		problems = append(problems, fmt.Sprintf("UploadURLTTL: must be at least 1s, got %v", c.UploadURLTTL))
	}
	if c.WorkDir == "" {
		problems = append(problems, "WorkDir: required")
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			problems = append(problems, fmt.Sprintf("BaseURL: must be an absolute http(s) URL without query, got %q", c.BaseURL))
		}
		c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
		if strings.HasSuffix(c.BaseURL, "/v2") {
			problems = append(problems, fmt.Sprintf("BaseURL: must not end in /v2, which the server adds to its routes (the client's base URL is BaseURL+\"/v2\"), got %q", c.BaseURL))
		}
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
	if c.MemoryBudget == 0 {
		c.MemoryBudget = DefaultMemoryBudget
	}
	if c.MaxPresets < 0 {
		problems = append(problems, fmt.Sprintf("MaxPresets: must not be negative, got %d", c.MaxPresets))
	}
	if c.MaxPresets == 0 {
		c.MaxPresets = DefaultMaxPresets
	}
	if c.WebhookSigner == nil {
		problems = append(problems, "WebhookSigner: required")
	}
	if c.WebhookTimeout < 0 {
		problems = append(problems, fmt.Sprintf("WebhookTimeout: must not be negative, got %v", c.WebhookTimeout))
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	}
	return nil
}
