package clientopt

import (
	"math"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/observe"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/ratelimit"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// Auth is the credential a client sends, and the secrets to redact.
type Auth struct {
	// Header and Value are the credential header and its value; empty
	// means none.
	Header, Value string
	// Name is the client's name for Value in errors ("apiKey").
	Name string
	// Secrets are more strings to redact (a license key, ...).
	Secrets []string
	// BudgetExternal is transport.Options.BudgetExternal: the client's
	// DoExternal requests to its service's origin count against its rate
	// budget (the correction container's corrected files).
	BudgetExternal bool
}

// Poll returns the wait loop's options for w; record turns each value the
// loop fetches into the job id and status that w.OnProgress receives.
func Poll(w config.Wait, record func(v any) (jobID, status string)) poll.Options {
	p := poll.Options{MinDelay: w.MinDelay, MaxDelay: w.MaxDelay, MaxWait: w.MaxWait}
	if fn := w.OnProgress; fn != nil {
		p.OnProgress = func(v any) { fn(record(v)) }
	}
	return p
}

// Build applies opts (a client package's Option values) and returns the
// configured transport and the Config. Problems are reported all at once
// as a *pfc.ValidationError, after those already in fe (the client's own
// checks, such as a missing key).
func Build[O ~func(*config.Config)](opts []O, auth Auth, fe apierr.FieldErrors) (*transport.Client, config.Config, error) {
	cfg := config.Apply(opts)
	fe = append(apierr.FieldErrors(nil), fe...)
	if primaryURL(cfg) == "" {
		fe.Add("BaseURL", "is required (use pfc.WithBaseURL)")
	}
	if cfg.MaxDownloadSize < 0 {
		fe.Add("MaxDownloadSize", "must not be negative, got %d", cfg.MaxDownloadSize)
	}
	if r := cfg.RateLimit; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		fe.Add("RateLimit", "must be a positive, finite number of requests per second (0: no limit), got %v", r)
	}
	if cfg.RateBurst < 0 || cfg.RateBurst > ratelimit.MaxBurst {
		fe.Add("RateBurst", "must be from 0 to %d, got %d", ratelimit.MaxBurst, cfg.RateBurst)
	}
	fe = append(fe, Poll(cfg.Polling, nil).Validate()...)
	if err := fe.Err(); err != nil {
		return nil, cfg, err
	}
	var budget *ratelimit.Budget
	if cfg.RateLimit > 0 {
		b, err := ratelimit.New(cfg.RateLimit, cfg.RateBurst)
		if err != nil {
			return nil, cfg, err // checked above
		}
		budget = b
	}
	tc, err := transport.New(transportOptions(cfg, auth, primaryURL(cfg), budget))
	if err != nil {
		return nil, cfg, err
	}
	return tc, cfg, nil
}

// transportOptions are the transport settings of cfg for baseURL, with
// the client's rate budget (nil: none), shared by all its transports.
func transportOptions(cfg config.Config, auth Auth, baseURL string, budget *ratelimit.Budget) transport.Options {
	return transport.Options{
		BaseURL:               baseURL,
		HTTPClient:            cfg.HTTPClient,
		UserAgent:             cfg.UserAgent,
		AuthHeader:            auth.Header,
		AuthValue:             auth.Value,
		AuthName:              auth.Name,
		Secrets:               auth.Secrets,
		MaxRetries:            cfg.MaxRetries,
		MinRetryWait:          cfg.MinRetryWait,
		MaxRetryWait:          cfg.MaxRetryWait,
		MaxRetryAfter:         cfg.MaxRetryAfter,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout,
		Logger:                cfg.Logger,
		Observer:              observe.Of(cfg.Observer),
		RateBudget:            budget,
		BudgetExternal:        auth.BudgetExternal,
	}
}
