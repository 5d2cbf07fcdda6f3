package clientopt

import (
	"context"
	"errors"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/config"
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
	if err := build(WithReplicas("http://a:1", "http://b:1/"), WithReplicaWeight("http://b:1", 4)); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]cfgOption{
		"Replicas[1]":   {WithReplicas("http://a:1", "http://a:1/")},
		"ReplicaWeight": {WithReplicas("http://a:1"), WithReplicaWeight("http://c:1", 2)},
		"BaseURL":       {base("http://a:1"), WithReplicas("http://b:1")},
		"ReplicaHost":   {WithReplicaHost("http://h:1"), WithReplicas("http://b:1")},
	} {
		var ve *apierr.ValidationError
		if err := build(opts...); !errors.As(err, &ve) || ve.Errors[0].Field != name {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
