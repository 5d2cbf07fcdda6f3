package clientopt

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// WithResolver sets the resolver of WithReplicaHost (tests).
func WithResolver(r replicas.Resolver) func(*config.Config) {
	return func(c *config.Config) { c.Replicas.Resolver = r }
}

// primaryURL is the base URL Build validates and builds its transport
// on: BaseURL, else the first replica URL, else the replica host.
func primaryURL(c config.Config) string {
	switch {
	case c.BaseURL != "":
		return c.BaseURL
	case len(c.Replicas.URLs) > 0:
		return c.Replicas.URLs[0]
	}
	return c.Replicas.Host
}

// shown is a replica URL as an error quotes it: redacted as the transport
// redacts URLs (no user info; query values, and a path long enough to
// carry a token, REDACTED), since a user may put a credential in it.
func shown(u string) string { return redact.WebhookURL(u) }

// Probe is a client's health check of one replica (GET /Status, GET
// /version).
type Probe func(ctx context.Context, tc *transport.Client) error

// BuildReplicas returns the replica list of a client configured by cfg:
// the replicas of WithReplicas or WithReplicaHost, else the one BaseURL,
// whose transport is primary (already built by Build). Each replica has a
// transport of its own with the same options and secrets.
func BuildReplicas(ctx context.Context, cfg config.Config, auth Auth, primary *transport.Client, probe Probe) (*replicas.Fleet, error) {
	rc := cfg.Replicas
	var fe apierr.FieldErrors
	if rc.Host != "" && len(rc.URLs) > 0 {
		fe.Add("ReplicaHost", "cannot be combined with WithReplicas")
	}
	if cfg.BaseURL != "" && (rc.Host != "" || len(rc.URLs) > 0) {
		fe.Add("BaseURL", "cannot be combined with WithReplicas or WithReplicaHost")
	}
	// Spellings of one URL ("HTTP://A:1", "http://a:1/.") are one
	// replica: a second one is refused like a repeat.
	seen := map[string]bool{}
	var targets []replicas.Target
	for i, u := range rc.URLs {
		u = strings.TrimSuffix(u, "/")
		if k := replicas.Key(u); seen[k] {
			fe.Add(fmt.Sprintf("Replicas[%d]", i), "repeats an earlier URL")
		} else {
			seen[k] = true
		}
		targets = append(targets, replicas.Target{URL: u})
	}
	weights := map[string]int{}
	for _, u := range slices.Sorted(maps.Keys(rc.Weights)) {
		w, k := rc.Weights[u], replicas.Key(u)
		prev, twice := weights[k]
		weights[k] = w
		switch {
		case w < 1 || w > replicas.MaxWeight:
			fe.Add("ReplicaWeight", "the weight of %s must be from 1 to %d, got %d", shown(u), replicas.MaxWeight, w)
		case len(targets) > 0 && !seen[k]:
			fe.Add("ReplicaWeight", "names %s, which is not one of the replicas", shown(u))
		case twice && prev != w:
			fe.Add("ReplicaWeight", "gives %s two weights, %d and %d", shown(u), prev, w)
		}
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	if len(targets) == 0 && rc.Host == "" {
		targets = []replicas.Target{{URL: cfg.BaseURL}}
	}
	primaryBase := replicas.Key(primaryURL(cfg))
	o := replicas.Options[*transport.Client]{
		Targets: targets, Host: rc.Host, Weights: rc.Weights,
		New: func(baseURL string) (*transport.Client, error) {
			if replicas.Key(baseURL) == primaryBase && len(targets) > 0 {
				return primary, nil
			}
			return transport.New(transportOptions(cfg, auth, baseURL, primary.Budget()))
		},
	}
	if rc.Resolver != nil {
		o.Resolver = rc.Resolver
	}
	if probe != nil {
		o.Probe = func(ctx context.Context, r *replicas.Node) error { return probe(ctx, r.Value) }
	}
	return replicas.New(ctx, o)
}
