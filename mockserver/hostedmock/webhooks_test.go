package hostedmock_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/webhook"
)

// hookReceiver is an HTTPS webhook receiver that records deliveries and
// answers with status(n) for the n-th (1-based).
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivery
	status func(n int) int
}

type delivery struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, status func(n int) int, wrap ...func(http.Handler) http.Handler) *hookReceiver {
	rc := &hookReceiver{status: status}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.Header.Clone(), b})
		n := len(rc.got)
		rc.mu.Unlock()
		w.WriteHeader(rc.status(n))
	})
	for _, w := range wrap {
		h = w(h)
	}
	rc.srv = httptest.NewUnstartedServer(h)
	// Refused handshakes are part of some tests; keep them out of the log.
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	rc := newHookReceiver(t, func(int) int { return http.StatusNoContent })
	f := newFixture(t, func(o *hostedmock.Options) {
		o.WebhookClient = rc.srv.Client()
		o.APIKeys = []string{"hook-key-1", "hook-key-2"}
		o.ProcessingDelay = 2 * time.Second
	})
	hook := url.QueryEscape(rc.srv.URL + "/hooks/pfc?token=abc")
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.WaitIdle()
	assert.Empty(t, rc.deliveries(), "nothing before the job ends")
	f.Advance(2 * time.Second)

	d := rc.deliveries()
	require.Len(t, d, 1)
	_, raw := f.status(t, id)
	assert.Equal(t, raw, d[0].body, "exactly the /status bytes")
	assert.Equal(t, "evt_"+id, d[0].header.Get("webhook-id"))
	assert.Equal(t, strconv.FormatInt(t0.Add(2*time.Second).Unix(), 10), d[0].header.Get("webhook-timestamp"))
	assert.Equal(t, "application/json", d[0].header.Get("Content-Type"))
	assert.Equal(t, "service-Webhook/1.0", d[0].header.Get("User-Agent"))
	assert.Empty(t, d[0].header.Get("X-API-KEY"))

	v, err := webhook.NewVerifier([][]byte{[]byte("hook-key-1")}, webhook.WithClock(f.clk.Now))
	require.NoError(t, err)
	job, err := v.VerifyJob(d[0].header, d[0].body)
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)
	assert.Equal(t, hosted.StatusCompleted, job.Status)
	other, err := webhook.NewVerifier([][]byte{[]byte("hook-key-2")}, webhook.WithClock(f.clk.Now))
	require.NoError(t, err)
	assert.ErrorIs(t, other.Verify(d[0].header, d[0].body), webhook.ErrNoValidSignature, "keyed with the /pfc key only")

	// The second key signs its own jobs.
	resp, b := f.do(t, http.MethodGet, "/v2/upload", "hook-key-2", nil)
	require.Equal(t, 200, resp.StatusCode)
	tk := decode[hosted.UploadTicket](t, b)
	resp, _ = f.do(t, http.MethodPut, tk.UploadURL, "", bytes.NewReader(jpegBytes(t, 70, 64)))
	require.Equal(t, 200, resp.StatusCode)
	resp, b = f.do(t, http.MethodGet, "/v2/pfc?fileKey="+tk.FileKey+"&webhookUrl="+hook, "hook-key-2", nil)
	require.Equal(t, 200, resp.StatusCode, string(b))
	f.Advance(2 * time.Second)
	d = rc.deliveries()
	require.Len(t, d, 2)
	require.NoError(t, other.Verify(d[1].header, d[1].body))

	// FAILED sends, REJECTED does not, a cache hit does (at once).
	f.proc.mu.Lock()
	f.proc.err = fmt.Errorf("engine exploded")
	f.proc.mu.Unlock()
	key = f.upload(t, "", jpegBytes(t, 66, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.Advance(2 * time.Second)
	d = rc.deliveries()
	require.Len(t, d, 3)
	failedJob, err := v.VerifyJob(d[2].header, d[2].body)
	require.NoError(t, err)
	assert.Equal(t, hosted.StatusFailed, failedJob.Status)

	key = f.upload(t, "", jpegBytes(t, 10, 10))
	f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.Advance(2 * time.Second)
	assert.Len(t, rc.deliveries(), 3, "no webhook for REJECTED")

	key = f.upload(t, "", jpegBytes(t, 64, 64))
	hitID := f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.WaitIdle()
	d = rc.deliveries()
	require.Len(t, d, 4)
	hit, err := v.VerifyJob(d[3].header, d[3].body)
	require.NoError(t, err)
	assert.Equal(t, hitID, hit.ID)
	assert.True(t, strings.HasPrefix(hit.StatusText, "cache hit"))
}

func TestWebhookRetrySchedule(t *testing.T) {
	t.Parallel()
	rc := newHookReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	f := newFixture(t, func(o *hostedmock.Options) { o.WebhookClient = rc.srv.Client() })
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	f.WaitIdle()
	f.Advance(2 * time.Hour)

	d := rc.deliveries()
	require.Len(t, d, 9, "the first attempt and 8 retries")
	var offsets []time.Duration
	v, err := webhook.NewVerifier([][]byte{[]byte(f.APIKey)}, webhook.WithClock(f.clk.Now), webhook.WithTolerance(3*time.Hour))
	require.NoError(t, err)
	for _, x := range d {
		ts, err := strconv.ParseInt(x.header.Get("webhook-timestamp"), 10, 64)
		require.NoError(t, err)
		offsets = append(offsets, time.Unix(ts, 0).Sub(t0))
		assert.Equal(t, "evt_"+id, x.header.Get("webhook-id"))
		assert.Equal(t, d[0].body, x.body)
		require.NoError(t, v.Verify(x.header, x.body), "each attempt is signed with its own timestamp")
	}
	min := time.Minute
	assert.Equal(t, []time.Duration{0, 1 * min, 3 * min, 6 * min, 11 * min, 18 * min, 27 * min, 37 * min, 48 * min}, offsets)

	// The job is unaffected.
	j, _ := f.status(t, id)
	assert.Equal(t, hosted.StatusCompleted, j.Status)
	resp, _ := f.api(t, http.MethodGet, "/status/"+id)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
}

func TestWebhookRetryUntilSuccessAndTimeout(t *testing.T) {
	t.Parallel()
	var hang sync.Once
	arrived := make(chan struct{})
	release := make(chan struct{})
	// The first delivery hangs until the mock gives up on it.
	hangFirst := func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			first := false
			hang.Do(func() { first = true })
			if first {
				_, _ = io.ReadAll(r.Body)
				close(arrived)
				<-release // past the mock's timeout
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	rc := newHookReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}, hangFirst)
	f := newFixture(t, func(o *hostedmock.Options) {
		o.WebhookClient = rc.srv.Client()
		o.WebhookTimeout = 10 * time.Second
	})
	t.Cleanup(func() { close(release) }) // before the receiver closes
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	<-arrived
	f.clk.BlockUntil(2) // the retention timer and the attempt's timeout
	f.clk.Advance(10 * time.Second)
	f.Advance(time.Hour)
	d := rc.deliveries()
	require.Len(t, d, 3, "timeout, 500, 500, then 200 (the hung one is not recorded)")
	var offsets []time.Duration
	for _, x := range d {
		ts, _ := strconv.ParseInt(x.header.Get("webhook-timestamp"), 10, 64)
		offsets = append(offsets, time.Unix(ts, 0).Sub(t0))
	}
	assert.Equal(t, []time.Duration{time.Minute, 3 * time.Minute, 6 * time.Minute}, offsets)
}

func TestWebhookCAs(t *testing.T) {
	t.Parallel()
	rc := newHookReceiver(t, func(int) int { return http.StatusOK })
	pool := rc.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	f := newFixture(t, func(o *hostedmock.Options) { o.WebhookCAs = pool })
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	f.WaitIdle()
	assert.Len(t, rc.deliveries(), 1)

	// Without trust (system roots) the delivery fails and is retried;
	// the job is unaffected.
	untrusting := newFixture(t)
	key = untrusting.upload(t, "", jpegBytes(t, 64, 66))
	id := untrusting.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	untrusting.WaitIdle()
	assert.Len(t, rc.deliveries(), 1)
	j, _ := untrusting.status(t, id)
	assert.Equal(t, hosted.StatusCompleted, j.Status)
	next, ok := untrusting.clk.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, t0.Add(time.Minute), next, "the first retry is scheduled")
}
