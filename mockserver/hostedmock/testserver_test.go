package hostedmock_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/webhook"
)

type countingTransport struct {
	n     atomic.Int32
	inner *http.Transport
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.inner.RoundTrip(r)
}

func TestStartHostedDefaultsAndClientOptions(t *testing.T) {
	t.Parallel()
	srv := hostedmock.Start(t, nil)
	assert.Equal(t, hostedmock.DefaultAPIKey, srv.APIKey)
	assert.Equal(t, srv.Server.URL+"/v2", srv.URL)
	_, isFake := srv.Clock().(*clock.Fake)
	assert.False(t, isFake, "the real clock by default")

	// Extra client options come after the test server's own.
	tr := &countingTransport{inner: &http.Transport{}}
	t.Cleanup(tr.inner.CloseIdleConnections)
	srv = hostedmock.Start(t, &hostedmock.Options{APIKeys: []string{"k1", "k2"}},
		pfc.WithHTTPClient(&http.Client{Transport: tr}))
	assert.Equal(t, "k1", srv.APIKey)
	_, err := srv.Client.RequestUpload(context.Background(), hosted.FileTypeImage)
	require.NoError(t, err)
	assert.EqualValues(t, 1, tr.n.Load(), "the client uses the HTTP client given to hostedmock.Start")
}

// TestWebhookVerifierOnTheServerClock: deliveries are stamped with the
// server's fake clock, a day before now; the verifier the test server
// hands out accepts them, one on the real clock does not.
func TestWebhookVerifierOnTheServerClock(t *testing.T) {
	t.Parallel()
	rc := newHookReceiver(t, func(int) int { return http.StatusNoContent })
	f := newFixture(t, func(o *hostedmock.Options) {
		o.WebhookClient = rc.srv.Client()
		o.APIKeys = []string{"a", "b"}
	})
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key+"&webhookUrl="+rc.srv.URL)
	f.WaitIdle()
	d := rc.deliveries()
	require.Len(t, d, 1)

	job, err := f.WebhookVerifier().VerifyJob(d[0].header, d[0].body)
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)

	realClock, err := webhook.NewVerifier([][]byte{[]byte("a")})
	require.NoError(t, err)
	var te *webhook.TimestampError
	require.ErrorAs(t, realClock.Verify(d[0].header, d[0].body), &te)

	v, err := webhook.NewVerifier([][]byte{[]byte("a")}, f.WebhookClock())
	require.NoError(t, err)
	require.NoError(t, v.Verify(d[0].header, d[0].body))
}
