package clientopt

import (
	"context"
	"errors"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/pfc"
)

type cfgOption = func(*config.Config)

func TestBuildReplicas(t *testing.T) {
	t.Parallel()
	base := func(u string) cfgOption { return func(c *config.Config) { c.BaseURL = u } }
	build := func(opts ...cfgOption) error {
		tc, cfg, err := Build(opts, Auth{}, nil)
		if err != nil {
			return err
		}
		_, err = BuildReplicas(context.Background(), cfg, Auth{}, tc, nil)
		return err
	}
	if err := build(pfc.WithReplicas("http://a:1", "http://b:1/"), pfc.WithReplicaWeight("http://b:1", 4)); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]cfgOption{
		"Replicas[1]":   {pfc.WithReplicas("http://a:1", "http://a:1/")},
		"ReplicaWeight": {pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight("http://c:1", 2)},
		"BaseURL":       {base("http://a:1"), pfc.WithReplicas("http://b:1")},
		"ReplicaHost":   {pfc.WithReplicaHost("http://h:1"), pfc.WithReplicas("http://b:1")},
	} {
		var ve *apierr.ValidationError
		if err := build(opts...); !errors.As(err, &ve) || ve.Errors[0].Field != name {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
