// Package config holds the settings that client options write. It imports
// the standard library only, so that package pfc can declare the shared
// options over it and every client package can declare its own Option type
// with the same underlying type (see package pfc, Option).
package config

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Config is what the options set. Zero fields mean the defaults of package
// transport (and, for Polling, of the client).
type Config struct {
	// BaseURL is the service's base URL (required).
	BaseURL string
	// HTTPClient sends the requests; nil uses a pooled client. It is
	// shallow-copied and never modified.
	HTTPClient *http.Client
	// UserAgent is appended to "pfc-go/<version>".
	UserAgent string
	// Logger receives redacted per-attempt records; nil logs nothing.
	Logger *slog.Logger
	// MaxRetries, MinRetryWait and MaxRetryWait: see transport.Options.
	MaxRetries                 int
	MinRetryWait, MaxRetryWait time.Duration
	// MaxRetryAfter caps a server's Retry-After.
	MaxRetryAfter time.Duration
	// ResponseHeaderTimeout bounds the wait for each attempt's response
	// headers: 0 means the transport's default, negative means no bound.
	ResponseHeaderTimeout time.Duration
	// MaxDownloadSize bounds the bytes a download writes; 0 means no bound.
	MaxDownloadSize int64
	// Polling holds the client's default wait options; PollingSet records
	// that a WithPolling option was given.
	Polling    Wait
	PollingSet bool
	// RateLimit and RateBurst are the client's rate budget
	// (pfc.WithRateLimit): requests per second, 0 meaning none, and how
	// many may go at once after a pause (0: 1).
	RateLimit float64
	RateBurst int
	// Replicas are a container client's replicas (WithReplicas ...).
	Replicas Replicas
	// Observer is a pfc.Observer (this package cannot name the type);
	// nil reports nothing.
	Observer any
}

// Replicas are the replica options of the container clients.
type Replicas struct {
	// URLs are static replicas' base URLs.
	URLs []string
	// Host is a base URL whose host name resolves to the replicas.
	Host string
	// Weights are replicas' weights by base URL.
	Weights map[string]int
	// Resolver resolves Host (tests); nil means net.DefaultResolver.
	Resolver interface {
		LookupHost(ctx context.Context, host string) ([]string, error)
	}
}

// Wait has the fields of pfc.WaitOptions, which converts to it.
type Wait struct {
	MinDelay, MaxDelay, MaxWait time.Duration
	OnProgress                  func(jobID, status string)
}

// Apply returns the Config opts describe; nil options are skipped.
func Apply[O ~func(*Config)](opts []O) Config {
	var c Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}
