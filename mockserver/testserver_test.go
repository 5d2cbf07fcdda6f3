package mockserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
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
	srv := mockserver.StartHosted(t, nil)
	assert.Equal(t, mockserver.DefaultAPIKey, srv.APIKey)
	assert.Equal(t, srv.Server.URL+"/v2", srv.URL)
	_, isFake := srv.Clock().(*clock.Fake)
	assert.False(t, isFake, "the real clock by default")

	// Extra client options come after the test server's own.
	tr := &countingTransport{inner: &http.Transport{}}
	t.Cleanup(tr.inner.CloseIdleConnections)
	srv = mockserver.StartHosted(t, &mockserver.HostedOptions{APIKeys: []string{"k1", "k2"}},
		pfc.WithHTTPClient(&http.Client{Transport: tr}))
	assert.Equal(t, "k1", srv.APIKey)
	_, err := srv.Client.RequestUpload(context.Background(), hosted.FileTypeImage)
	require.NoError(t, err)
	assert.EqualValues(t, 1, tr.n.Load(), "the client uses the HTTP client given to StartHosted")
}

// TestWebhookVerifierOnTheServerClock: deliveries are stamped with the
// server's fake clock, a day before now; the verifier the test server
// hands out accepts them, one on the real clock does not.
func TestWebhookVerifierOnTheServerClock(t *testing.T) {
	t.Parallel()
	rc := newHookReceiver(t, func(int) int { return http.StatusNoContent })
	f := newFixture(t, func(o *mockserver.HostedOptions) {
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

// waitRecorder keeps the wait of every "pfc: retrying request" record.
type waitRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *waitRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *waitRecorder) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "pfc: retrying request" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" {
			r.mu.Lock()
			r.waits = append(r.waits, a.Value.Duration())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}
func (r *waitRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *waitRecorder) WithGroup(string) slog.Handler      { return r }

// TestStartedClientsRetryFast: the clients the three Start helpers hand
// out retry an in-process mock's faults after waits of at most 20 ms, a
// 429's Retry-After of 1 s included, and as often as a client does by
// default (4 retries); their wait is read from the client's retry
// records, not timed.
func TestStartedClientsRetryFast(t *testing.T) {
	t.Parallel()
	const maxWait = 20 * time.Millisecond
	faults := func(t *testing.T, spec string) *mockserver.FaultSpec {
		f, err := mockserver.ParseFaults(spec)
		require.NoError(t, err)
		return f
	}
	ctx := context.Background()
	calls := map[string]func(t *testing.T, rec *waitRecorder) error{
		"hosted": func(t *testing.T, rec *waitRecorder) error {
			srv := mockserver.StartHosted(t, &mockserver.HostedOptions{Faults: faults(t, "rate=1,kinds=429|503,routes=upload,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.RequestUpload(ctx, hosted.FileTypeImage)
			return err
		},
		"pfccontainer": func(t *testing.T, rec *waitRecorder) error {
			srv := mockserver.StartPFCContainer(t, &mockserver.PFCContainerOptions{Faults: faults(t, "rate=1,kinds=429|503,routes=version,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.Version(ctx)
			return err
		},
		"bgcontainer": func(t *testing.T, rec *waitRecorder) error {
			srv := mockserver.StartBGContainer(t, &mockserver.BGContainerOptions{Faults: faults(t, "rate=1,kinds=429|503,routes=status,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.Status(ctx)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := &waitRecorder{}
			err := call(t, rec)
			require.Error(t, err, "every attempt is faulted")
			var ae *pfc.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, 5, ae.Attempts, "the clients' default of 4 retries")
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Len(t, rec.waits, 4)
			for _, w := range rec.waits {
				assert.LessOrEqual(t, w, maxWait)
			}
		})
	}
}
