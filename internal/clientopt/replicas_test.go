package clientopt

import (
	"context"
	"errors"
	"math"
	"strings"
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
	if err := build(pfc.WithReplicas("http://a:1", "http://b:1/"), pfc.WithReplicaWeight("HTTP://B:1/.", 4)); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		field string
		opts  []cfgOption
	}{
		{"Replicas[1]", []cfgOption{pfc.WithReplicas("http://a:1", "http://a:1/")}},
		{"ReplicaWeight", []cfgOption{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight("http://c:1", 2)}},
		// Spellings of one replica are one (each made another replica).
		{"Replicas[1]", []cfgOption{pfc.WithReplicas("http://a.test:1", "HTTP://a.test:1")}},
		{"Replicas[1]", []cfgOption{pfc.WithReplicas("http://a.test:1", "http://A.TEST:1")}},
		{"Replicas[1]", []cfgOption{pfc.WithReplicas("http://a.test:1", "http://a.test:1/.")}},
		{"ReplicaWeight", []cfgOption{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight("http://a:1", 2), pfc.WithReplicaWeight("HTTP://a:1", 3)}},
		// A weight that overflows the choice's arithmetic (it was taken).
		{"ReplicaWeight", []cfgOption{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight("http://a:1", math.MaxInt)}},
		{"ReplicaWeight", []cfgOption{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight("http://a:1", 0)}},
		{"BaseURL", []cfgOption{base("http://a:1"), pfc.WithReplicas("http://b:1")}},
		{"ReplicaHost", []cfgOption{pfc.WithReplicaHost("http://h:1"), pfc.WithReplicas("http://b:1")}},
	} {
		var ve *apierr.ValidationError
		if err := build(c.opts...); !errors.As(err, &ve) || ve.Errors[0].Field != c.field {
			t.Errorf("case %d (%s): err = %v", i, c.field, err)
		}
	}
}

// A replica URL quoted by an error is redacted as the transport redacts
// URLs: a password, a token in the path or in the query never appears (the
// URL was quoted whole).
func TestBuildReplicasRedactsURLs(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3tTokenValue0123456789"
	bad := []string{
		"http://user:" + secret + "@b:1",
		"http://b:1/" + secret,
		"http://b:1/x?token=" + secret,
	}
	for i, u := range bad {
		for _, opts := range [][]cfgOption{
			{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight(u, 0)},
			{pfc.WithReplicas("http://a:1"), pfc.WithReplicaWeight(u, 2)},
			{pfc.WithReplicaHost("http://h:1"), pfc.WithReplicaWeight(u, 2), pfc.WithReplicaWeight(strings.ToUpper(u[:4])+u[4:], 3)},
		} {
			tc, cfg, err := Build(opts, Auth{}, nil)
			if err == nil {
				_, err = BuildReplicas(context.Background(), cfg, Auth{}, tc, nil)
			}
			if err == nil {
				t.Fatalf("case %d: no error", i)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "user") {
				t.Errorf("case %d: the error quotes the URL's secret: %v", i, err)
			}
		}
	}
}
