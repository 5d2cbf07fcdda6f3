package clientopt

import (
	"context"
	"fmt"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// ReplicaConfig is what the replica options set.
type ReplicaConfig struct {
	// URLs are static replicas' base URLs (WithReplicas).
	URLs []string
	// Host is a base URL whose host name resolves to the replicas
	// (WithReplicaHost).
	Host string
	// Resolver resolves Host; nil means net.DefaultResolver. Tests set it.
	Resolver replicas.Resolver
	// Weights are the weights of WithReplicaWeight, by base URL.
	Weights map[string]int
}

// WithReplicas sets several base URLs, one per replica of the container.
func WithReplicas(urls ...string) Option {
	return func(c *Config) { c.Replica.URLs = append([]string(nil), urls...) }
}

// WithReplicaHost sets a base URL whose host name resolves to the
// replicas' addresses.
func WithReplicaHost(baseURL string) Option { return func(c *Config) { c.Replica.Host = baseURL } }

// WithReplicaWeight gives the replica at baseURL weight times the work
// of a replica of weight 1 (the default).
func WithReplicaWeight(baseURL string, weight int) Option {
	return func(c *Config) {
		if c.Replica.Weights == nil {
			c.Replica.Weights = map[string]int{}
		}
		c.Replica.Weights[strings.TrimSuffix(baseURL, "/")] = weight
	}
}

// WithResolver sets the resolver of WithReplicaHost (tests).
func WithResolver(r replicas.Resolver) Option { return func(c *Config) { c.Replica.Resolver = r } }

// primaryURL is the base URL Build validates and builds its transport
// on: BaseURL, else the first replica URL, else the replica host.
func (c Config) primaryURL() string {
	switch {
	case c.BaseURL != "":
		return c.BaseURL
	case len(c.Replica.URLs) > 0:
		return c.Replica.URLs[0]
	}
	return c.Replica.Host
}

// Probe is a client's health check of one replica (GET /Status, GET
// /version).
type Probe func(ctx context.Context, tc *transport.Client) error

// BuildReplicas returns the replica list of a client configured by cfg:
// the replicas of WithReplicas or WithReplicaHost, else the one BaseURL,
// whose transport is primary (already built by Build). Each replica has a
// transport of its own with the same options and secrets.
func BuildReplicas(ctx context.Context, cfg Config, auth Auth, primary *transport.Client, probe Probe) (*replicas.List[*transport.Client], error) {
	var fe apierr.FieldErrors
	if cfg.Replica.Host != "" && len(cfg.Replica.URLs) > 0 {
		fe.Add("ReplicaHost", "cannot be combined with WithReplicas")
	}
	if cfg.BaseURL != "" && (cfg.Replica.Host != "" || len(cfg.Replica.URLs) > 0) {
		fe.Add("BaseURL", "cannot be combined with WithReplicas or WithReplicaHost")
	}
	seen := map[string]bool{}
	var targets []replicas.Target
	for i, u := range cfg.Replica.URLs {
		u = strings.TrimSuffix(u, "/")
		if seen[u] {
			fe.Add(fmt.Sprintf("Replicas[%d]", i), "repeats an earlier URL")
		}
		seen[u] = true
		targets = append(targets, replicas.Target{URL: u})
	}
	for u := range cfg.Replica.Weights {
		if len(targets) > 0 && !seen[u] {
			fe.Add("ReplicaWeight", "names %s, which is not one of the replicas", u)
		}
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	if len(targets) == 0 && cfg.Replica.Host == "" {
		targets = []replicas.Target{{URL: cfg.BaseURL}}
	}
	o := replicas.Options[*transport.Client]{
		Targets: targets, Host: cfg.Replica.Host, Resolver: cfg.Replica.Resolver, Weights: cfg.Replica.Weights,
		New: func(baseURL string) (*transport.Client, error) {
			if baseURL == strings.TrimSuffix(cfg.primaryURL(), "/") && len(targets) > 0 {
				return primary, nil
			}
			return transport.New(transportOptions(cfg, auth, baseURL))
		},
	}
	if probe != nil {
		o.Probe = func(ctx context.Context, r *replicas.Replica[*transport.Client]) error { return probe(ctx, r.Value) }
	}
	return replicas.New(ctx, o)
}
