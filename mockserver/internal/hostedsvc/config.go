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
	DefaultMemoryBudget = 1_200_000_000
	// MaxPresetBytes bounds a preset file upload.
	MaxPresetBytes = 1 << 20
	// DefaultMaxPresets is the default of Config.MaxPresets.
	DefaultMaxPresets = 10_000
)

// Config configures a Service.
type Config struct {
	// APIKeys are the valid X-API-KEY values; each key is its own account
	// (its uploads, jobs and presets are invisible to other keys).
	// Required.
	APIKeys []string
	// Clock is the time source; nil means clock.Real().
	Clock clock.Clock
	// ProcessingDelay is how long a job stays PROCESSING, at least, on the
	// clock (0: it completes as soon as the processor returns).
	ProcessingDelay time.Duration
	// Retention is how long job records and results stay available after
	// a job ends; 0 means DefaultRetention. Must be 24 h to 7 days.
	Retention time.Duration
	// UploadURLTTL is the validity of pre-signed URLs, on Clock (a
	// clock.Scaled scales it: see Service.urlExpiry); 0 means
	// DefaultUploadURLTTL.
	UploadURLTTL time.Duration
	// DataDir is the directory for uploaded and result files. Required;
	// the Service removes nothing in it on Close (the caller owns it).
	DataDir string
	// BaseURL, if set, is the scheme and host (and optional path prefix)
	// used in the URLs the server hands out, e.g. "https://mock.example";
	// otherwise they are derived from each request's Host. It must not
	// include /v2 (the API's routes add it).
	BaseURL string
	// Processor corrects images; nil makes every image job FAILED with
	// JobCodeNoEngine (videos still pass through).
	Processor Processor
	// Workers is the number of jobs processed at once; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory of the images being processed at
	// once, in bytes: each counts imageio.BudgetPixelBytes a pixel of
	// jobCost (see jobqueue); 0 means DefaultMemoryBudget. An image larger
	// than the budget is processed alone.
	MemoryBudget int64
	// WebhookClient sends webhooks; nil builds one from WebhookCAs.
	WebhookClient *http.Client
	// WebhookCAs are the roots trusted for webhook targets when
	// WebhookClient is nil; nil means the system roots.
	WebhookCAs *x509.CertPool
	// WebhookSigner signs deliveries (webhook.Sign). Required.
	WebhookSigner webhooksend.Signer
	// WebhookSchedule overrides webhooksend.DefaultSchedule.
	WebhookSchedule []time.Duration
	// WebhookTimeout overrides webhooksend.DefaultAttemptTimeout (which
	// a clock.Scaled does not scale; see webhooksend.Config).
	WebhookTimeout time.Duration
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// SigningKey keys the pre-signed URLs; empty means a random key.
	SigningKey []byte
	// MaxPresets caps the custom presets of one account, uploaded or
	// awaiting their file; 0 means DefaultMaxPresets. POST /presets/
	// beyond it answers 409 conflict (no parameter) saying so.
	MaxPresets int
}

// ErrInvalidConfig is wrapped by every configuration error of New.
var ErrInvalidConfig = errors.New("hostedsvc: invalid config")

func (c *Config) normalize() error {
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
	if c.DataDir == "" {
		problems = append(problems, "DataDir: required")
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
