package clientopt

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
)

func TestApplySetsEveryField(t *testing.T) {
	t.Parallel()
	hc := &http.Client{}
	l := slog.Default()
	p := poll.Options{MinDelay: time.Millisecond, MaxDelay: time.Second, MaxWait: time.Minute}
	cfg := Apply([]Option{
		WithBaseURL("http://x.test/v2"), WithHTTPClient(hc), WithLogger(l),
		WithRetries(2, time.Millisecond, time.Second), WithMaxRetryAfter(3 * time.Second),
		WithUserAgent("app/1"), WithResponseHeaderTimeout(time.Minute), WithPolling(p), nil,
	})
	assert.Equal(t, "http://x.test/v2", cfg.BaseURL)
	assert.Same(t, hc, cfg.HTTPClient)
	assert.Same(t, l, cfg.Logger)
	assert.Equal(t, 2, cfg.MaxRetries)
	assert.Equal(t, time.Millisecond, cfg.MinRetryWait)
	assert.Equal(t, time.Second, cfg.MaxRetryWait)
	assert.Equal(t, 3*time.Second, cfg.MaxRetryAfter)
	assert.Equal(t, "app/1", cfg.UserAgent)
	assert.Equal(t, time.Minute, cfg.ResponseHeaderTimeout)
	assert.Equal(t, p, cfg.Polling)
	assert.True(t, cfg.PollingSet())
	assert.False(t, Apply(nil).PollingSet())
}

func TestBuildReportsAllProblemsAtOnce(t *testing.T) {
	t.Parallel()
	var fe apierr.FieldErrors
	fe.Add("apiKey", "is required")
	_, _, err := Build([]Option{WithPolling(poll.Options{MinDelay: time.Second, MaxDelay: time.Millisecond})}, Auth{}, fe)
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"apiKey", "BaseURL", "MaxDelay"}, ve.Fields())

	_, _, err = Build([]Option{WithBaseURL("ftp://x")}, Auth{}, nil)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"BaseURL"}, ve.Fields())
}

func TestBuildConfiguresTheTransport(t *testing.T) {
	t.Parallel()
	tc, cfg, err := Build([]Option{WithBaseURL("http://x.test/v2/")},
		Auth{Header: "X-API-KEY", Value: "k-secret-1", Secrets: []string{"lic-secret-2"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "http://x.test/v2", cfg.BaseURL[:len("http://x.test/v2")])
	assert.Equal(t, "http://x.test/v2/status/1", tc.URL("status/1"))
	assert.Equal(t, "a REDACTED b REDACTED", tc.Redact("a k-secret-1 b lic-secret-2"))
}
