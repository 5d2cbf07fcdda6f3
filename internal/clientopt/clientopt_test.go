package clientopt

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/pfc"
)

type option func(*config.Config)

func polling(w config.Wait) option {
	return func(c *config.Config) { c.Polling, c.PollingSet = w, true }
}

func TestBuildReportsAllProblemsAtOnce(t *testing.T) {
	t.Parallel()
	var fe apierr.FieldErrors
	fe.Add("apiKey", "is required")
	_, _, err := Build([]option{polling(config.Wait{MinDelay: time.Second, MaxDelay: time.Millisecond})}, Auth{}, fe)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"apiKey", "BaseURL", "MaxDelay"}, ve.Fields())

	_, _, err = Build([]option{pfc.WithBaseURL("ftp://x")}, Auth{}, nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"BaseURL"}, ve.Fields())
}

func TestBuildConfiguresTheTransport(t *testing.T) {
	t.Parallel()
	tc, cfg, err := Build([]option{pfc.WithBaseURL("http://x.test/v2/"), pfc.WithMaxDownloadSize(7), nil},
		Auth{Header: "X-API-KEY", Value: "k-secret-1", Secrets: []string{"lic-secret-2"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "http://x.test/v2", cfg.BaseURL[:len("http://x.test/v2")])
	assert.Equal(t, int64(7), cfg.MaxDownloadSize)
	assert.Equal(t, "http://x.test/v2/status/1", tc.URL("status/1"))
	assert.Equal(t, "a REDACTED b REDACTED", tc.Redact("a k-secret-1 b lic-secret-2"))
}

func TestPollPassesIDAndStatus(t *testing.T) {
	t.Parallel()
	var got []string
	p := Poll(config.Wait{MaxWait: time.Second, OnProgress: func(id, status string) { got = append(got, id, status) }},
		func(v any) (string, string) { return v.(string), "RUNNING" })
	assert.Equal(t, time.Second, p.MaxWait)
	p.OnProgress("j1")
	assert.Equal(t, []string{"j1", "RUNNING"}, got)
}

// TestBuildRateBudget: WithRateLimit's values are checked, and the
// transports of every replica of a client share its one budget.
func TestBuildRateBudget(t *testing.T) {
	t.Parallel()
	for _, o := range []option{pfc.WithRateLimit(-1, -2), pfc.WithRateLimit(math.NaN(), -1), pfc.WithRateLimit(math.Inf(1), -1)} {
		_, _, err := Build([]option{pfc.WithBaseURL("http://x.test"), o}, Auth{}, nil)
		var ve *pfc.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, []string{"RateLimit", "RateBurst"}, ve.Fields())
	}
	tc, _, err := Build([]option{pfc.WithBaseURL("http://x.test")}, Auth{}, nil)
	require.NoError(t, err)
	assert.Nil(t, tc.Budget())
	assert.Zero(t, tc.Rate())

	tc, cfg, err := Build([]option{pfc.WithReplicas("http://a.test:1", "http://b.test:1"), pfc.WithRateLimit(5, 0)}, Auth{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 5.0, tc.Rate())
	l, err := BuildReplicas(context.Background(), cfg, Auth{}, tc, nil)
	require.NoError(t, err)
	all := l.All()
	require.Len(t, all, 2)
	for _, r := range all {
		assert.Same(t, tc.Budget(), r.Value.Budget(), r.URL)
	}
}
